/**
 * Correctness checks of a benchmark run. Times never gate a run; these do: every task must
 * have run and finished the expected number of times, or the figures mean nothing.
 */

/** One check and its outcome. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Collects checks across scenarios. */
export class Checks {
  readonly all: Check[] = [];

  /** Records that `actual` equals `expected`. Returns whether it did. */
  equal(name: string, actual: number | boolean, expected: number | boolean): boolean {
    const ok = actual === expected;
    this.all.push({ name, ok, detail: `expected ${expected}, got ${actual}` });
    return ok;
  }

  /** The failed checks. */
  get failed(): readonly Check[] {
    return this.all.filter((c) => !c.ok);
  }
}
