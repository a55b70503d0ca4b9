// Contenders measured side by side take turns going first: round r runs them rotated by r - 1 (ABC, BCA, CAB, …), so
// neither a warm cache, a checkpoint nor the machine's drifting load always falls on the same one.
import type { Figure } from "./types";

/** The contenders in the order round `round` (1-based) runs them. */
export function rotation<T>(items: readonly T[], round: number): T[] {
  const shift = (round - 1) % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** Runs one round's contenders one after another in their turn; returns each one's result and the order they ran in. */
export async function runRotated<C extends Record<string, () => Promise<unknown>>>(
  contenders: C,
  round: number,
): Promise<{ results: { [K in keyof C]: Awaited<ReturnType<C[K]>> }; order: (keyof C & string)[] }> {
  const order = rotation(Object.keys(contenders) as (keyof C & string)[], round);
  const results = {} as { [K in keyof C]: Awaited<ReturnType<C[K]>> };
  for (const name of order) {
    const contender = contenders[name];
    if (!contender) throw new Error(`no contender ${name}`);
    results[name] = (await contender()) as Awaited<ReturnType<C[typeof name]>>;
  }
  return { results, order };
}

/** A module's figures, one value per round, in the order first recorded. */
export class RoundFigures {
  readonly #figures = new Map<string, Figure>();

  record(label: string, unit: string, value: number): void {
    const figure = this.#figures.get(label) ?? { label, unit, rounds: [] };
    figure.rounds.push(value);
    this.#figures.set(label, figure);
  }

  list(): Figure[] {
    return [...this.#figures.values()];
  }
}
