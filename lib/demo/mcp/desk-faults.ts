// When the demo desk misbehaves, so the gateway has something to handle: decided by a seeded random source and call
// counters, so one seed always gives the same sequence of faults.
export type DeskFault =
  | "none"
  /** Commit, then answer only after the contract's timeout: the gateway records UNKNOWN. */
  | "hang_after_commit"
  /** Answer only after the contract's timeout, without any effect (reads). */
  | "slow"
  /** Answer isError before committing anything. */
  | "busy"
  /** Commit, then answer isError: the effect happened although the call failed. */
  | "error_after_commit";

export interface DeskFaultSettings {
  seed: number;
  /** Every Nth create_ticket commits, then hangs; 0 never. */
  hangEvery: number;
}

/** mulberry32: a small seeded generator, enough for a demo's fault schedule. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class DeskFaults {
  private readonly random: () => number;
  private readonly calls = new Map<string, number>();

  constructor(private readonly settings: DeskFaultSettings) {
    this.random = seededRandom(settings.seed);
  }

  /** The fault for the next call of `tool`. */
  next(tool: string): DeskFault {
    const count = (this.calls.get(tool) ?? 0) + 1;
    this.calls.set(tool, count);
    const roll = this.random();
    switch (tool) {
      case "create_ticket":
        return this.settings.hangEvery > 0 && count % this.settings.hangEvery === 0 ? "hang_after_commit" : "none";
      case "find_customer":
        return roll < 0.15 ? "slow" : "none";
      case "add_note":
        return roll < 0.1 ? "busy" : "none";
      case "close_ticket":
        return roll < 0.1 ? "error_after_commit" : "none";
      default:
        return "none";
    }
  }
}
