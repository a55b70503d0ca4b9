// Coverage counters for the model-based ledger tests: a generator that never reaches a command, a phase or an answer
// would let a property pass vacuously, so each test counts what its runs reached and asserts it at the end.
import { expect } from "vitest";

/**
 * The runs a coverage assertion needs: fewer (a replay of one seed, say) reach too little to say a generator is broken,
 * so the tests skip the assertion below it.
 */
export const COVERED_RUNS = 100;

/** What is counted: the model's commands, the phases operations reached, and the ledger's answers per command. */
export type CoverageKind = "command" | "phase" | "claim" | "dispatch" | "release";

export class Coverage {
  readonly #counts = new Map<string, number>();

  count(kind: CoverageKind, name: string): void {
    const key = `${kind}:${name}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** One line of every count, logged after the runs so a thin spot shows long before it reaches 0. */
  log(test: string): void {
    const counts = [...this.#counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => `${key}=${n}`);
    process.stdout.write(`${test} coverage: ${counts.join(" ")}\n`);
  }

  /** Every name was reached at least once. */
  expectReached(kind: CoverageKind, names: readonly string[]): void {
    const counts = Object.fromEntries(names.map((name) => [name, this.#counts.get(`${kind}:${name}`) ?? 0]));
    const missed = names.filter((name) => counts[name] === 0);
    expect(missed, `${kind}s never reached in this run (counts: ${JSON.stringify(counts)})`).toEqual([]);
  }
}
