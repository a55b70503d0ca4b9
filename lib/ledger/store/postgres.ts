// The ledger store on PostgreSQL: its own pg pool beside Prisma's, and each command's writes sent as one statement.
import pg from "pg";
import type { Attempt, Operation } from "@/lib/generated/prisma/client";
import { auditRow, type AuditInput } from "../audit";
import { eventHashTail } from "../audit-chain";
import { WriteConflict } from "../transaction";
import {
  ATTEMPT,
  ContractVersionCache,
  DEPENDENCY,
  insertStatement,
  OPERATION,
  SqlLedgerReads,
  storeReads,
  updateStatement,
  type Executor,
  type Statement,
  type ValueCodec,
} from "./sql";
import { UniqueViolation, type AttemptChanges, type DependencyChanges, type LedgerStore, type LedgerTx, type OperationColumns } from "./types";

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

function executor(pool: pg.Pool): Executor {
  const query = async (sql: string, params: unknown[]) => {
    try {
      return await pool.query({ ...statement(sql), values: params });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "23505") throw new UniqueViolation((error as Error).message, { cause: error });
      if (code === CONDITION_FAILED) throw new WriteConflict("a conditional write matched no row", { cause: error });
      throw error;
    }
  };
  return {
    rows: async (sql, params) => (await query(sql, params)).rows as Record<string, unknown>[],
    run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
  };
}

/**
 * A command's transaction on PostgreSQL, without BEGIN and COMMIT: its reads run as they come (each sees the latest
 * committed state, as under READ COMMITTED), its writes are collected and sent at the end as one statement, which
 * PostgreSQL runs atomically. Every write must change exactly one row (a conditional update at a version that moved
 * changes none): otherwise opledger_expect_rows aborts the statement and nothing is written (WriteConflict, retried).
 * The audit events are appended inside the same statement by opledger_append_audit, which locks the chain's head only
 * for that statement. So a command costs its reads plus one round trip, where BEGIN, each write, the audit append and
 * COMMIT used to cost one each.
 */
class OneStatementTx extends SqlLedgerReads implements LedgerTx {
  readonly #writes: Statement[] = [];
  readonly #written = new Set<string>();
  readonly #audit: AuditInput[] = [];

  /** One statement cannot change a row twice (PostgreSQL would apply one of the two): refuse it loudly. */
  #add(target: string, write: Statement): Promise<boolean> {
    if (this.#written.has(target)) throw new Error(`${target} is written twice in one command`);
    this.#written.add(target);
    this.#writes.push(write);
    return Promise.resolve(true);
  }

  async insertOperation(op: Operation): Promise<void> {
    await this.#add(`Operation ${op.id}`, insertStatement(this.codec, OPERATION, op));
  }

  updateOperation(id: string, version: number, columns: OperationColumns): Promise<boolean> {
    return this.#add(`Operation ${id}`, updateStatement(this.codec, OPERATION, columns, { id, version }));
  }

  async insertAttempt(row: Attempt): Promise<void> {
    await this.#add(`Attempt ${row.id}`, insertStatement(this.codec, ATTEMPT, row));
  }

  async updateAttempt(id: string, changes: AttemptChanges): Promise<void> {
    await this.#add(`Attempt ${id}`, updateStatement(this.codec, ATTEMPT, changes, { id }));
  }

  updateDependency(name: string, version: number, changes: DependencyChanges): Promise<boolean> {
    return this.#add(`Dependency ${name}`, updateStatement(this.codec, DEPENDENCY, changes, { name, version }));
  }

  appendAudit(inputs: AuditInput[]): Promise<void> {
    this.#audit.push(...inputs);
    return Promise.resolve();
  }

  /** Not locked: a concurrent sweep that moved the same operation first makes this command's write fail its version. */
  claimExpiredLease(now: Date): Promise<Operation | null> {
    return this.oldestExpiredLease(now);
  }

  /** Sends the collected writes and audit events as one statement. */
  async flush(): Promise<void> {
    const parts = this.#writes.map((write, i) => `w${i} AS (${write.sql} RETURNING 1)`);
    const selects: string[] = [];
    const params: unknown[] = this.#writes.flatMap((write) => write.params);
    if (parts.length > 0) selects.push(`opledger_expect_rows(ARRAY[${parts.map((_, i) => `(SELECT count(*) FROM w${i})`).join(", ")}]::bigint[])`);
    if (this.#audit.length > 0) {
      selects.push("opledger_append_audit(?::jsonb)");
      params.push(JSON.stringify(this.#audit.map((input) => auditEventJson(input))));
    }
    if (selects.length === 0) return;
    await this.x.run(`${parts.length > 0 ? `WITH ${parts.join(", ")} ` : ""}SELECT ${selects.join(", ")}`, params);
  }
}

/** An audit event as opledger_append_audit reads it: its row, and the JSON tail its hash covers after the seq. */
function auditEventJson(input: AuditInput) {
  const row = auditRow(input);
  return { ...row, createdAt: row.createdAt.toISOString(), tail: eventHashTail(row) };
}

export function openPostgresStore(connectionString: string, poolSize: number): LedgerStore {
  const pool = new pg.Pool({ connectionString, max: poolSize, types });
  // An idle connection the server closed is dropped from the pool; the next query opens another.
  pool.on("error", () => undefined);
  const x = executor(pool);
  const contracts = new ContractVersionCache();
  return {
    ...storeReads(new SqlLedgerReads(x, codec, contracts), (work) => work()),
    transaction: async (work) => {
      const tx = new OneStatementTx(x, codec, contracts);
      const result = await work(tx);
      await tx.flush();
      return result;
    },
    close: () => pool.end(),
  };
}
