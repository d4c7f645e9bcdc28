// HMAC over the id and the whole body: Redis write access alone runs nothing, and no seal moves to another id.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError, showValue } from '@leap/core';

const MIN_SECRET = 16;

/** What travels as a job's data or a job's return value: the body as JSON text, and its HMAC. */
export type Sealed = { v: 1; body: string; mac: string };

/** A job, its result and its progress sealed under the job's id; a heartbeat and a drain under the worker's name. */
export type SealKind = 'job' | 'result' | 'progress' | 'heartbeat' | 'drain';

export class SignatureError extends Error {}

/** The queue secret: from `file` (its first line) when given, else LEAP_QUEUE_SECRET; never printed. */
export function readQueueSecret(env: NodeJS.ProcessEnv, file?: string): Buffer {
  const from = file === undefined ? 'LEAP_QUEUE_SECRET' : `--secret-file ${showValue(file)}`;
  let secret = env.LEAP_QUEUE_SECRET ?? '';
  if (file !== undefined) {
    try {
      secret = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new UsageError(`${from}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  } else {
    const limits = `at least ${MIN_SECRET} characters; never on the command line`;
    const how = `set LEAP_QUEUE_SECRET or give --secret-file FILE (${limits})`;
    if (secret === '') throw new UsageError(`the queue needs a secret shared by the engine and every worker: ${how}`);
  }
  const length = [...secret].length;
  if (length < MIN_SECRET)
    throw new UsageError(`the queue secret from ${from} has ${length} characters; it needs at least ${MIN_SECRET}`);
  return Buffer.from(secret, 'utf8');
}

const macOf = (secret: Buffer, kind: SealKind, id: string, body: string) =>
  createHmac('sha256', secret).update(`leap-${kind}-v1\n${id}\n`).update(body).digest('hex');

export function seal(secret: Buffer, kind: SealKind, id: string, value: unknown): Sealed {
  const body = JSON.stringify(value);
  return { v: 1, body, mac: macOf(secret, kind, id, body) };
}

export function unseal(secret: Buffer, kind: SealKind, id: string, data: unknown): unknown {
  const d = data as Partial<Sealed> | null;
  if (d === null || typeof d !== 'object' || typeof d.body !== 'string' || typeof d.mac !== 'string')
    throw new SignatureError(`the ${kind} is unsigned`);
  const want = Buffer.from(macOf(secret, kind, id, d.body), 'hex');
  const got = Buffer.from(/^[0-9a-f]{64}$/.test(d.mac) ? d.mac : '', 'hex');
  const of = kind === 'job' || kind === 'result' || kind === 'progress' ? 'job id' : "worker's name";
  if (got.length !== want.length || !timingSafeEqual(got, want))
    throw new SignatureError(`the ${kind} is wrongly signed (another secret, or its content or ${of} changed)`);
  try {
    return JSON.parse(d.body) as unknown;
  } catch {
    throw new SignatureError(`the ${kind}'s signed body is not JSON`);
  }
}
