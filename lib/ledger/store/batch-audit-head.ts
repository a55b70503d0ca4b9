// The audit chain's head during one SQLite group commit: read once, moved in memory by each command's events, and
// written once, just before the COMMIT. The batch holds SQLite's write lock from BEGIN IMMEDIATE to COMMIT, so nobody
// else can move the head meanwhile; a command rolled back to its savepoint takes its move back with it.
import type { Executor } from "./sql";

export interface ChainHead {
  /** seq of the last chained event */
  seq: number;
  /** that event's hash */
  hash: string;
}

/** What a savepoint needs to put the head back: as the batch knew it, and whether the batch had moved it. */
export interface HeadMark {
  head: ChainHead | null;
  moved: boolean;
}

const READ_HEAD = `SELECT "seq", "hash" FROM "AuditChain" WHERE "id" = 1`;
const WRITE_HEAD = `UPDATE "AuditChain" SET "seq" = ?, "hash" = ? WHERE "id" = 1`;

export class BatchAuditHead {
  /** null until the batch first needs it */
  #head: ChainHead | null = null;
  #moved = false;

  constructor(private readonly x: Executor) {}

  /** A batch begins: what was known of the head belongs to a transaction that has ended. */
  begin(): void {
    this.#head = null;
    this.#moved = false;
  }

  async current(): Promise<ChainHead> {
    if (this.#head) return this.#head;
    const [row] = await this.x.rows(READ_HEAD, []);
    if (!row) throw new Error("The audit chain has no head row; the database is not migrated.");
    return (this.#head = { seq: Number(row.seq), hash: String(row.hash) });
  }

  moveTo(head: ChainHead): void {
    this.#head = head;
    this.#moved = true;
  }

  mark(): HeadMark {
    return { head: this.#head, moved: this.#moved };
  }

  restore(mark: HeadMark): void {
    this.#head = mark.head;
    this.#moved = mark.moved;
  }

  /** The batch's last statement before COMMIT: the head as its commands left it. */
  async write(): Promise<void> {
    if (this.#moved && this.#head) await this.x.run(WRITE_HEAD, [this.#head.seq, this.#head.hash]);
  }
}
