// The ledger store on PostgreSQL: its own pipelined connections beside Prisma's pool, each command's writes sent as one
// statement (several commands' together), and a memory of the rows it last saw.
import pg from "pg";
import { CommandBatcher, type CommandWrites } from "./command-batch";
import { PipelinedClients } from "./pipelined-clients";
import { numbered, PreparedTexts } from "./prepared-texts";
import { OneStatementTx } from "./one-statement-tx";
import { CommandMemory, RememberedRows } from "./remembered-rows";
import { ContractVersionCache, SqlLedgerReads, storeReads, type Executor, type ValueCodec } from "../sql";
import { UniqueViolation, WriteConflict, type LedgerStore, type LedgerTx } from "../types";

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

/** The SQLSTATE opledger_expect_rows raises when a conditional write matched no row (migration 20261130200000). */
const CONDITION_FAILED = "OPL01";

/**
 * Most batch texts prepared. Each holds a cached plan on every connection (measured: 6.6 MB of plans on one backend
 * for 14 statements, most of them batches of 16), and batches of other commands or sizes keep making new texts; under
 * a steady load the few that recur (the same commands in the same numbers) come first. Preparing them cut the server's
 * CPU per lifecycle by ~30%: planning a batch of 16 costs more than running it. Single commands' texts are a set the
 * code fixes (a command, the columns it changes, its count of audit events), bounded all the same.
 */
const preparedTexts = new PreparedTexts({ maxTexts: 512, maxBatches: 8, maxSeenBatches: 1_000 });

/**
 * Runs statements on the pipelined connections, with PostgreSQL's errors as the store's. `prepare`: false for a
 * text that may not recur (a batch of several commands), which would only fill every connection with statements.
 */
async function query(
  pool: PipelinedClients,
  sql: string,
  params: unknown[],
  kind: "single" | "batch" = "single",
): Promise<pg.QueryResult> {
  try {
    const statement = preparedTexts.statementFor(sql, kind) ?? { text: numbered(sql) };
    return await pool.query({ ...statement, values: params });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "23505") throw new UniqueViolation((error as Error).message, { cause: error });
    if (code === CONDITION_FAILED) throw new WriteConflict("a conditional write matched no row", { cause: error });
    throw error;
  }
}

function executor(pool: PipelinedClients): Executor {
  return {
    rows: async (sql, params) => (await query(pool, sql, params)).rows as Record<string, unknown>[],
    run: async (sql, params) => (await query(pool, sql, params)).rowCount ?? 0,
  };
}

/** Runs a command and sends its statement; what it read and wrote is remembered if that succeeded, forgotten if not. */
async function run<T>(tx: OneStatementTx, work: (tx: LedgerTx) => Promise<T>): Promise<T> {
  try {
    const result = await work(tx);
    await tx.flush();
    tx.memory.remember();
    return result;
  } catch (error) {
    tx.memory.forget();
    throw error;
  }
}

export function openPostgresStore(connectionString: string, poolSize: number): LedgerStore {
  const pool = new PipelinedClients({ connectionString, types }, poolSize);
  const x = executor(pool);
  const batcher = new CommandBatcher(async ({ sql, params }, alone) => {
    await query(pool, sql, params, alone ? "single" : "batch");
  });
  const submit = (command: CommandWrites) => batcher.submit(command);
  const contracts = new ContractVersionCache();
  const remembered = new RememberedRows();
  return {
    ...storeReads(new SqlLedgerReads(x, codec, contracts), (work) => work()),
    transaction: async (work) => {
      const first = new OneStatementTx(x, codec, contracts, new CommandMemory(remembered, false), submit);
      try {
        return await run(first, work);
      } catch (error) {
        if (!first.memory.reliedOnMemory) throw error;
      }
      // Memory misled the command (a row had moved on, or it refused on what it remembered): decide again on fresh
      // reads.
      return run(new OneStatementTx(x, codec, contracts, new CommandMemory(remembered, true), submit), work);
    },
    close: () => pool.close(),
  };
}
