// The ledger store on SQLite: its own better-sqlite3 connection, taking turns with Prisma's connection to the same file.
import Database from "better-sqlite3";
import type { Turns } from "@/lib/sqlite-connection-guard";
import { ContractVersionCache, EXPIRED_LEASE_SQL, SqlLedgerReads, SqlLedgerTx, storeReads, type Executor, type ValueCodec } from "./sql";
import { UniqueViolation, type LedgerStore, type LedgerTx } from "./types";

/** DateTime as Prisma's SQLite adapter writes it (ISO 8601 with +00:00), so both write the same text and it sorts. */
const codec: ValueCodec = {
  toDb: (value) => (value instanceof Date ? value.toISOString().replace("Z", "+00:00") : typeof value === "boolean" ? (value ? 1 : 0) : value),
  date: (value) => {
    if (typeof value === "number") return new Date(value);
    const text = String(value);
    // SQLite's CURRENT_TIMESTAMP (a column default) has neither the T nor a zone: it is UTC.
    return new Date(/[zZ]|[+-]\d\d:\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`);
  },
  boolean: (value) => value === 1 || value === true || value === "1",
};

function isUniqueViolation(error: unknown): boolean {
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
        return Promise.reject(isUniqueViolation(error) ? new UniqueViolation((error as Error).message, { cause: error }) : (error as Error));
      }
    },
  };
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
  const reads = new SqlLedgerReads(x, codec, contracts);
  const tx: LedgerTx = new SqlLedgerTx(x, codec, contracts, { expiredLeaseSql: EXPIRED_LEASE_SQL, writesInWith: false });
  return {
    ...storeReads(reads, (work) => turns.alone(work)),
    transaction: (work) =>
      turns.alone(async () => {
        // IMMEDIATE takes the write lock at once: a transaction that reads first and writes later cannot lose its snapshot.
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await work(tx);
          db.exec("COMMIT");
          return result;
        } finally {
          if (db.inTransaction) db.exec("ROLLBACK");
        }
      }),
    close: () => turns.alone(() => Promise.resolve(db.close())).then(() => undefined),
  };
}
