// The ledger store on SQLite: its own better-sqlite3 connection, taking turns with Prisma's connection to the same
// file.
import Database from "better-sqlite3";
import type { Turns } from "@/lib/platform/db/sqlite-connection-guard";
import { raceBarrier, SQLITE_WRITE_LOCK } from "@/lib/testing/race-barrier";
import { BatchAudit } from "./batch-audit";
import { ContractVersionCache, SqlLedgerReads, storeReads, type Executor, type ValueCodec } from "../sql";
import { SqlLedgerTx } from "./sqlite-tx";
import { UniqueViolation, type LedgerStore, type LedgerTx } from "../types";

/** DateTime as Prisma's SQLite adapter writes it (ISO 8601 with +00:00), so both write the same text and it sorts. */
export const sqliteCodec: ValueCodec = {
  toDb: (value) =>
    value instanceof Date
      ? value.toISOString().replace("Z", "+00:00")
      : typeof value === "boolean"
        ? value
          ? 1
          : 0
        : value,
  date: (value) => {
    if (typeof value === "number") return new Date(value);
    const text = String(value);
    // SQLite's CURRENT_TIMESTAMP (a column default) has neither the T nor a zone: it is UTC.
    return new Date(/[zZ]|[+-]\d\d:\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`);
  },
  boolean: (value) => value === 1 || value === true || value === "1",
};

function isSqliteUniqueError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

function executor(db: Database.Database): Executor {
  const statements = new Map<string, Database.Statement>();
  const statement = (sql: string): Database.Statement => {
    let prepared = statements.get(sql);
    if (!prepared) statements.set(sql, (prepared = db.prepare(sql)));
    return prepared;
  };
  return {
    rows: (sql, params) => Promise.resolve(statement(sql).all(...params) as Record<string, unknown>[]),
    run: (sql, params) => {
      try {
        return Promise.resolve(statement(sql).run(...params).changes);
      } catch (error) {
        return Promise.reject(
          isSqliteUniqueError(error)
            ? new UniqueViolation((error as Error).message, { cause: error })
            : (error as Error),
        );
      }
    },
  };
}

interface Queued {
  work: (tx: LedgerTx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the transactions that queue up while one runs share the next BEGIN IMMEDIATE ... COMMIT, each inside
 * its own savepoint, so one fsync makes a whole batch durable; the batch's audit events and the chain's head are
 * written together at its end (BatchAudit). A transaction that throws is rolled back to its savepoint and leaves the
 * others alone; none is answered before the COMMIT, and if the COMMIT fails all of them fail.
 * Within the batch they run one after another, as separate transactions would.
 */
class GroupCommit {
  static readonly MAX_BATCH = 32;
  readonly #queue: Queued[] = [];
  #draining = false;

  constructor(
    private readonly db: Database.Database,
    private readonly tx: LedgerTx,
    private readonly audit: BatchAudit,
    private readonly turns: Turns,
  ) {}

  run<T>(work: (tx: LedgerTx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#draining) return;
      this.#draining = true;
      // Wait for the requests whose I/O is already in: those that reach their transaction now join this batch.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, GroupCommit.MAX_BATCH);
        // Should even the ROLLBACK fail, nobody in the batch is left waiting (settling twice changes nothing).
        await this.turns
          .alone(() => this.#commit(batch))
          .catch((error: unknown) => batch.forEach((queued) => queued.reject(error)));
      }
    } finally {
      this.#draining = false;
    }
  }

  async #commit(batch: Queued[]): Promise<void> {
    const failAll = (error: unknown): void => {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      for (const queued of batch) queued.reject(error);
    };
    const answers: (() => void)[] = [];
    try {
      // IMMEDIATE takes the write lock at once: a transaction that reads first and writes later cannot lose its
      // snapshot.
      await raceBarrier("sqlite.begin-immediate", SQLITE_WRITE_LOCK);
      this.db.exec("BEGIN IMMEDIATE");
      this.audit.begin();
      for (const queued of batch) {
        this.db.exec("SAVEPOINT command");
        const mark = this.audit.mark();
        try {
          const value = await queued.work(this.tx);
          this.db.exec("RELEASE command");
          answers.push(() => queued.resolve(value));
        } catch (error) {
          // Some errors (a full disk, I/O) end the whole transaction: then nothing in the batch was written.
          if (!this.db.inTransaction) return failAll(error);
          this.db.exec("ROLLBACK TO command");
          this.db.exec("RELEASE command");
          this.audit.restore(mark);
          answers.push(() => queued.reject(error));
        }
      }
      await this.audit.write();
      this.db.exec("COMMIT");
    } catch (error) {
      return failAll(error);
    }
    for (const answer of answers) answer();
  }
}

/**
 * Opens the store on a migrated SQLite file with the server's durability settings (the journal mode is the file's:
 * applySqliteSettings puts it in WAL when the server starts). Every use of the connection
 * waits for `turns` (shared with Prisma's guarded connection): a transaction holds the connection across its awaits,
 * and a read from another request must not run inside it.
 */
export function openSqliteStore(file: string, turns: Turns, busyTimeoutMs: number): LedgerStore {
  const db = new Database(file);
  db.pragma("synchronous = FULL");
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const x = executor(db);
  const contracts = new ContractVersionCache();
  const reads = new SqlLedgerReads(x, sqliteCodec, contracts);
  const audit = new BatchAudit(x, sqliteCodec);
  const tx: LedgerTx = new SqlLedgerTx(x, sqliteCodec, contracts, audit);
  const commits = new GroupCommit(db, tx, audit, turns);
  return {
    ...storeReads(reads, (work) => turns.alone(work)),
    transaction: (work) => commits.run(work),
    close: () => turns.alone(() => Promise.resolve(db.close())).then(() => undefined),
  };
}
