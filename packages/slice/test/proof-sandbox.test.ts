// The engine's proofs run in the sandbox (CONTRACT section 13), as writers of the ball's checkout only: a hostile
// live proof (code the builder wrote is what proofs run) tries to write the user's home, the main tree and the
// state folder, and to reach the network; it fails at each, and says so. (A proof has the user's environment, as
// the suite runs do: the contract's writers of the tree; secrets are kept from agents' leaves, not from tests.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import {
  ball,
  contentProof,
  engineEnv,
  leapSlice,
  readLeap,
  setupRepo,
  writeAgents,
  writeSlice,
} from './engine-helpers.js';

const BASE = { 'src/a.txt': 'old a\n', 'README.md': '# repo\n' };
const proofs = suite('leap slice run: proofs in the sandbox');
proofs.after.each(cleanupTempDirs);

// What the hostile proof tries, each reported as "name: ok" or "name: refused (CODE)"; it exits 0 so its output is kept.
const HOSTILE = (home: string, main: string, state: string) => `
const fs = require('fs'), net = require('net');
const out = [];
const attempt = (name, fn) => { try { fn(); out.push(name + ': ok'); } catch (e) { out.push(name + ': refused (' + (e.code || e.message) + ')'); } };
attempt('home', () => fs.writeFileSync(${JSON.stringify(join(home, 'planted'))}, 'x'));
attempt('main', () => fs.writeFileSync(${JSON.stringify(join(main, 'README.md'))}, 'owned'));
attempt('state', () => fs.appendFileSync(${JSON.stringify(join(state, 'events.jsonl'))}, '{"event":"merge"}\\n'));
const s = net.connect({ host: '192.0.2.1', port: 9 });
s.on('error', (e) => { out.push('network: refused (' + e.code + ')'); done(); });
s.on('connect', () => { out.push('network: ok'); done(); });
setTimeout(() => { out.push('network: no answer'); done(); }, 3000);
let said = false;
function done() { if (said) return; said = true; console.log(out.join('\\n')); process.exit(0); }
`;

proofs(
  "a hostile live proof: no write outside its checkout, no network; the user's files and log untouched",
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const home = makeTempDir('leap-proof-home-');
    mkdirSync(join(repo, '.tdd'), { recursive: true });
    const script = HOSTILE(home, repo, join(repo, '.tdd'));
    const file = writeSlice(dir, {
      id: 'boxed',
      balls: [
        ball('a', ['src/a.txt'], BASE, {
          proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) },
          live: { argv: [process.execPath, '-e', script], timeout_s: 30 },
        }),
      ],
    });
    const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
    const out = await leapSlice(
      repo,
      ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2'],
      engineEnv({ HOME: home }),
    );
    assert.is(out.code, 0, out.stderr);
    const round = readLeap<{ live: { output: string } }>(repo, 'boxed', 'a', 'round-1.json');
    const seen = round?.live.output ?? '';
    assert.match(seen, /^home: refused \(E(ROFS|ACCES|NOENT)\)$/m, seen);
    // The main tree is read-only inside; in /tmp (where tests make repositories) the write lands in the private /tmp.
    assert.match(seen, /^main: (refused \(E(ROFS|ACCES|NOENT)\)|ok)$/m, seen);
    assert.match(seen, /^state: refused \(E(ROFS|ACCES|NOENT)\)$/m, seen);
    assert.match(seen, /^network: refused \(ENETUNREACH\)$/m, seen);
    assert.not.ok(existsSync(join(home, 'planted')), 'home untouched');
    assert.is(readFileSync(join(repo, 'README.md'), 'utf8'), '# repo\n', 'the main tree untouched');
    assert.not.ok(
      readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8').includes('{"event":"merge"}\n{'),
      'no forged line',
    );
  },
);

proofs('--sandbox off: the same proof runs as the user (the escape hatch): it can write the home', async () => {
  const { repo, dir } = setupRepo(BASE);
  const home = makeTempDir('leap-proof-home-');
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  writeFileSync(join(home, '.keep'), '');
  const file = writeSlice(dir, {
    id: 'open',
    balls: [
      ball('a', ['src/a.txt'], BASE, {
        proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) },
        live: {
          argv: [process.execPath, '-e', HOSTILE(home, join(dir, 'nowhere'), join(dir, 'nowhere'))],
          timeout_s: 30,
        },
      }),
    ],
  });
  const agents = writeAgents(dir, { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } });
  const out = await leapSlice(
    repo,
    ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2', '--sandbox', 'off'],
    engineEnv({ HOME: home }),
  );
  assert.is(out.code, 0, out.stderr);
  assert.ok(existsSync(join(home, 'planted')), 'unsandboxed, the proof wrote the home');
});

proofs.run();
