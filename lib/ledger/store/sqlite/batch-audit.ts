// The audit events of one SQLite group commit: chained in memory as each command appends them, and written together,
// with the chain's head, just before the COMMIT. The batch holds SQLite's write lock from BEGIN IMMEDIATE to COMMIT,
// so nobody else can move the head meanwhile; a command rolled back to its savepoint takes its events back with it.
import { chainAuditEvents, type AuditInput } from "@/lib/ledger/audit/append";
import { AUDIT_EVENT, insertSql, type Executor, type Row, type ValueCodec } from "../sql";

interface ChainHead {
  /** seq of the last chained event */
  seq: number;
  /** that event's hash */
  hash: string;
}

/** What a savepoint needs to put the batch back: the head as the batch knew it, and how many events it held. */
export interface AuditMark {
  head: ChainHead | null;
  events: number;
}

const READ_HEAD = `SELECT "seq", "hash" FROM "AuditChain" WHERE "id" = 1`;
const WRITE_HEAD = `UPDATE "AuditChain" SET "seq" = ?, "hash" = ? WHERE "id" = 1`;
/** Rows per INSERT: far below SQLite's 32,766 bound variables at 14 columns a row. */
const ROWS_PER_INSERT = 500;

export class BatchAudit {
  /** null until the batch first appends */
  #head: ChainHead | null = null;
  #events: Row[] = [];

  constructor(
    private readonly x: Executor,
    private readonly codec: ValueCodec,
  ) {}

  /** A batch begins: what was known of the head belongs to a transaction that has ended. */
  begin(): void {
    this.#head = null;
    this.#events = [];
  }

  async append(inputs: AuditInput[]): Promise<void> {
    if (inputs.length === 0) return;
    const before = this.#head ?? (await this.#readHead());
    const seq = before.seq + inputs.length;
    const { rows, hash } = chainAuditEvents({ seq, hash: before.hash }, inputs);
    this.#events.push(...(rows as Row[]));
    this.#head = { seq, hash };
  }

  mark(): AuditMark {
    return { head: this.#head, events: this.#events.length };
  }

  restore(mark: AuditMark): void {
    this.#head = mark.head;
    this.#events.length = mark.events;
  }

  /** The batch's last statements before COMMIT: its events in order, then the head as they left it. */
  async write(): Promise<void> {
    if (!this.#head || this.#events.length === 0) return;
    const columns = Object.keys(this.#events[0] ?? {});
    for (let at = 0; at < this.#events.length; at += ROWS_PER_INSERT) {
      const rows = this.#events.slice(at, at + ROWS_PER_INSERT);
      await this.x.run(
        insertSql(AUDIT_EVENT, columns, rows.length),
        rows.flatMap((row) => columns.map((column) => this.codec.toDb(row[column]))),
      );
    }
    await this.x.run(WRITE_HEAD, [this.#head.seq, this.#head.hash]);
  }

  async #readHead(): Promise<ChainHead> {
    const [row] = await this.x.rows(READ_HEAD, []);
    if (!row) throw new Error("The audit chain has no head row; the database is not migrated.");
    return { seq: Number(row.seq), hash: String(row.hash) };
  }
}
