// The ledger's data model (CONTRACT section 6). Types only: importing this module costs nothing.

/** Where a step stands: unchecked, done with its refactor still owed, or done. */
export type StepState = 'todo' | 'refactor-pending' | 'done';

/** One step of a ledger, as `leap-ledger list --json` prints it. */
export interface LedgerStep {
  /** The step's title, byte for byte, without the checkbox, the markers or surrounding whitespace. */
  title: string;
  state: StepState;
  /** 1-based line number in the ledger. */
  line: number;
  /** K of a trailing `<!-- criterion: K -->`, else null. */
  criterion: number | null;
}

/** A parsed ledger: its text, kept whole so serializing an unmodified parse is byte-identical. */
export interface Ledger {
  /** The name used in error messages; `<stdin>` when none was given. */
  file: string;
  text: string;
  steps: LedgerStep[];
  /** 1-based line of the `## Steps` heading. */
  stepsLine: number;
}

/** One problem `validateLedger` found; `parseLedger` throws the first as a FileFormatError. */
export interface LedgerProblem {
  /** The name given to validateLedger; `<stdin>` when none was. */
  file: string;
  /** 1-based line the problem is on. */
  line: number;
  message: string;
}

/** One item of an issue body's `## Acceptance criteria` section. */
export interface Criterion {
  /** 1-based position of the item in the section. */
  index: number;
  /** The item's first line, after its list marker and checkbox, trimmed. */
  text: string;
  checked: boolean;
  /** False for an item without a checkbox (`- text`, `1. text`): it cannot be ticked. */
  checkable: boolean;
  /** 1-based line of the item in the body. */
  line: number;
}

/** A step of a plan, the input of `renderLedger`. */
export interface PlanStep {
  title: string;
  criterion?: number | null;
}

/** What `leap-ledger init` turns into a ledger: a title and steps in order. */
export interface LedgerPlan {
  title: string;
  steps: PlanStep[];
}

/** What parsePlan reads: every step says whether it links a criterion. */
export interface ParsedPlan extends LedgerPlan {
  steps: Array<Required<PlanStep>>;
}
