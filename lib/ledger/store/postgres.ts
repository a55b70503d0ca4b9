// The ledger store on PostgreSQL: its own pg pool beside Prisma's, prepared statements by name, one client per transaction.
import pg from "pg";
import { ContractVersionCache, EXPIRED_LEASE_SQL, SqlLedgerReads, SqlLedgerTx, storeReads, type Dialect, type Executor, type ValueCodec } from "./sql";
import { UniqueViolation, type LedgerStore } from "./types";

const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

/** Prisma's DateTime is TIMESTAMP(3) holding UTC: read it as UTC whatever the process's time zone. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP || oid === TIMESTAMPTZ
      ? (value: string) => new Date(oid === TIMESTAMP ? `${value.replace(" ", "T")}Z` : value)
      : (pg.types.getTypeParser(oid, format) as (value: string) => unknown)) as typeof pg.types.getTypeParser,
};

/** An ISO string: TIMESTAMP (without time zone) takes its digits as they are, which is UTC. */
const codec: ValueCodec = {
  toDb: (value) => (value instanceof Date ? value.toISOString() : value),
  date: (value) => value as Date,
  boolean: (value) => value as boolean,
};

/** `?` placeholders numbered for PostgreSQL; each distinct text is prepared once per connection under its own name. */
const prepared = new Map<string, { name: string; text: string }>();
function statement(sql: string): { name: string; text: string } {
  let found = prepared.get(sql);
  if (!found) {
    let n = 0;
    found = { name: `opledger_${prepared.size}`, text: sql.replace(/\?/g, () => `$${++n}`) };
    prepared.set(sql, found);
  }
  return found;
}

const DIALECT: Dialect = { expiredLeaseSql: `${EXPIRED_LEASE_SQL} FOR UPDATE SKIP LOCKED`, writesInWith: true };

type Queryable = Pick<pg.PoolClient, "query">;

function executor(client: Queryable): Executor {
  const query = async (sql: string, params: unknown[]) => {
    try {
      return await client.query({ ...statement(sql), values: params });
    } catch (error) {
      throw (error as { code?: unknown }).code === "23505" ? new UniqueViolation((error as Error).message, { cause: error }) : error;
    }
  };
  return {
    rows: async (sql, params) => (await query(sql, params)).rows as Record<string, unknown>[],
    run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
  };
}

export function openPostgresStore(connectionString: string, poolSize: number): LedgerStore {
  const pool = new pg.Pool({ connectionString, max: poolSize, types });
  // An idle connection the server closed is dropped from the pool; the next query opens another.
  pool.on("error", () => undefined);
  const contracts = new ContractVersionCache();
  const reads = new SqlLedgerReads(executor(pool), codec, contracts);
  return {
    ...storeReads(reads, (work) => work()),
    transaction: async (work) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        try {
          const result = await work(new SqlLedgerTx(executor(client), codec, contracts, DIALECT));
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
          throw error;
        }
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
