// Which statement texts the PostgreSQL store prepares: a named statement holds a cached plan on every connection, so
// the texts worth one are those that recur, and their number is bounded.

/** `?` placeholders numbered for PostgreSQL. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export interface PreparedText {
  name: string;
  text: string;
}

export interface PreparedTextLimits {
  /** Every prepared text, single commands and batches: past it, new texts go unprepared. */
  maxTexts: number;
  /** Batch texts among them (see postgres-store.ts for why batches are rationed). */
  maxBatches: number;
  /** Batch texts sighted once and remembered for a second sighting; forgotten in bulk, a bound only. */
  maxSeenBatches: number;
}

export class PreparedTexts {
  readonly #prepared = new Map<string, PreparedText>();
  readonly #seenBatches = new Set<string>();
  #batches = 0;

  constructor(private readonly limits: PreparedTextLimits) {}

  /**
   * The named statement for `sql`, or null to send it unprepared. A single command's text is prepared at once (a
   * command's text recurs); a batch's on its second sighting, since batches of other commands or sizes keep making new
   * texts.
   */
  statementFor(sql: string, kind: "single" | "batch"): PreparedText | null {
    const found = this.#prepared.get(sql);
    if (found) return found;
    if (this.#prepared.size >= this.limits.maxTexts) return null;
    if (kind === "batch") {
      if (this.#batches >= this.limits.maxBatches) return null;
      if (!this.#seenBatches.delete(sql)) {
        if (this.#seenBatches.size >= this.limits.maxSeenBatches) this.#seenBatches.clear();
        this.#seenBatches.add(sql);
        return null;
      }
      this.#batches++;
    }
    const statement = { name: `opledger_${this.#prepared.size}`, text: numbered(sql) };
    this.#prepared.set(sql, statement);
    return statement;
  }
}
