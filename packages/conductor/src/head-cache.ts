// HEAD's commit and subject, read once until a git command, a leaf or a ledger transaction may have moved it.
import { headFromFiles } from './git.js';

const MOVING = new Set(['commit', 'reset', 'checkout', 'symbolic-ref', 'update-ref', 'read-tree', 'rebase', 'merge']);

export type KnownHead = { sha: string; subject: string | null };

export class HeadCache {
  private known: KnownHead | null = null;

  /** `log` reads `%H%x00%s` of HEAD with git, when .git's files cannot say. */
  constructor(
    private readonly root: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: () => Promise<string>,
  ) {}

  /** Forget HEAD: a commit, a reset, a leaf (agents commit), a ledger transaction. */
  invalidate(): void {
    this.known = null;
  }

  beforeGit(args: readonly string[]): void {
    if (MOVING.has((args[0] === '-c' ? args[2] : args[0]) ?? '')) this.invalidate();
  }

  /** HEAD as a ledger transaction or a `git status --branch` left it, or forgotten when it cannot say. */
  know(head: KnownHead | null): void {
    if (head?.subject === null && head.sha === this.known?.sha) return;
    this.known = head;
  }

  async subject(): Promise<string> {
    if (this.known?.subject == null) this.known = headFromFiles(this.root, this.env);
    if (this.known?.subject == null) {
      const out = await this.log();
      const at = out.indexOf('\0');
      this.known = { sha: out.slice(0, at), subject: out.slice(at + 1) };
    }
    return this.known.subject as string;
  }

  async sha(): Promise<string> {
    if (this.known === null) await this.subject();
    return (this.known as KnownHead).sha;
  }
}
