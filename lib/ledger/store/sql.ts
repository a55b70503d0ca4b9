// The ledger's statements, written once for both engines: quoted identifiers, `?` placeholders (numbered for PostgreSQL
// by its executor).
import {
  Prisma,
  type ApiKey,
  type Attempt,
  type ContractVersion,
  type Dependency,
  type Operation,
  type RunAllowance,
} from "@/lib/platform/generated/prisma/client";
import type { ContractHead, LedgerReads, OperationRows, RunAllowanceChanges, RunAllowanceSeen } from "./types";

export type Row = Record<string, unknown>;

/** How one engine runs a statement; values are already in the engine's representation. */
export interface Executor {
  rows(sql: string, params: unknown[]): Promise<Row[]>;
  /** Returns how many rows the statement changed. */
  run(sql: string, params: unknown[]): Promise<number>;
}

/** How one engine represents the values Prisma's models use. */
export interface ValueCodec {
  toDb(value: unknown): unknown;
  /** A DateTime column as the driver returned it. */
  date(value: unknown): Date;
  /** A Boolean column as the driver returned it. */
  boolean(value: unknown): boolean;
}

export interface Table {
  name: string;
  dates: readonly string[];
  booleans: readonly string[];
}

export const OPERATION: Table = {
  name: "Operation",
  dates: [
    "firstDispatchedAt",
    "notBefore",
    "leaseExpiresAt",
    "approvalExpiresAt",
    "deliveredAt",
    "createdAt",
    "updatedAt",
  ],
  booleans: [],
};
const CONTRACT_VERSION: Table = { name: "ContractVersion", dates: ["createdAt"], booleans: ["traceArguments"] };
export const DEPENDENCY: Table = {
  name: "Dependency",
  dates: ["openedAt", "lastFailureAt", "updatedAt"],
  booleans: ["probeInFlight"],
};
export const ATTEMPT: Table = { name: "Attempt", dates: ["dispatchedAt", "finishedAt"], booleans: [] };
const API_KEY: Table = { name: "ApiKey", dates: ["createdAt", "lastUsedAt", "revokedAt"], booleans: ["bootstrap"] };
export const AUDIT_EVENT: Table = { name: "AuditEvent", dates: ["createdAt"], booleans: [] };
const RUN_ALLOWANCE: Table = {
  name: "RunAllowance",
  dates: ["deadlineAt", "exhaustedAt", "createdAt", "updatedAt"],
  booleans: [],
};

/**
 * A row as Prisma's generated type describes it: DateTime columns as Date, Boolean columns as boolean. Converts in
 * place: every row it is given is a fresh object of the driver's or of byAlias.
 */
function fromDb<T>(codec: ValueCodec, table: Table, row: Row | undefined): T | null {
  if (!row) return null;
  for (const column of table.dates)
    if (row[column] !== null && row[column] !== undefined) row[column] = codec.date(row[column]);
  for (const column of table.booleans)
    if (row[column] !== null && row[column] !== undefined) row[column] = codec.boolean(row[column]);
  return row as T;
}

const q = (column: string): string => `"${column}"`;

/** The columns of a joined table under `alias.column`, so they do not clash with the main table's. */
function aliased(alias: string, columns: Record<string, string>): string {
  return Object.values(columns)
    .map((column) => `${alias}.${q(column)} AS ${q(`${alias}.${column}`)}`)
    .join(", ");
}

/**
 * Takes a joined row apart: each `alias.column` goes to its alias's row under its own name, every other column to the
 * main row (alias ""). Builds new objects rather than deleting keys: a row that lost keys is slow to read from.
 */
function byAlias(row: Row): Map<string, Row> {
  const parts = new Map<string, Row>([["", {}]]);
  for (const column in row) {
    const dot = column.indexOf(".");
    const alias = dot < 0 ? "" : column.slice(0, dot);
    let part = parts.get(alias);
    if (!part) parts.set(alias, (part = {}));
    part[dot < 0 ? column : column.slice(dot + 1)] = row[column];
  }
  return parts;
}

/** A joined table's part of the row; undefined when the join found no row (its key column is null). */
function joinedPart(parts: Map<string, Row>, alias: string, key: string): Row | undefined {
  const part = parts.get(alias);
  return part?.[key] === null || part?.[key] === undefined ? undefined : part;
}

const DEPENDENCY_OF_CONTRACT = `LEFT JOIN "Dependency" d ON d."name" = c."dependency"`;

export function insertSql(table: Table, columns: string[], rowCount = 1): string {
  const one = `(${columns.map(() => "?").join(", ")})`;
  return `INSERT INTO ${q(table.name)} (${columns.map(q).join(", ")}) VALUES ${Array.from({ length: rowCount }, () => one).join(", ")}`;
}

/** Columns whose value is undefined are left alone, as Prisma does. */
function defined(changes: Row): [string, unknown][] {
  return Object.entries(changes).filter(([, value]) => value !== undefined);
}

export const SELECT = {
  operationByKey: `SELECT * FROM "Operation" WHERE "tool" = ? AND "idempotencyKey" = ?`,
  latestOfCall: `SELECT * FROM "Operation" WHERE "callKey" = ? AND "tool" = ? ORDER BY "idempotencyKey" DESC LIMIT 1`,
  contractHead: `SELECT t."currentVersion", ${aliased("d", Prisma.DependencyScalarFieldEnum)} FROM "ToolContract" t
    LEFT JOIN "ContractVersion" c ON c."tool" = t."tool" AND c."version" = t."currentVersion" ${DEPENDENCY_OF_CONTRACT}
    WHERE t."tool" = ?`,
  operationContext:
    `SELECT o.*, ${aliased("d", Prisma.DependencyScalarFieldEnum)}, ` +
    `${aliased("a", Prisma.AttemptScalarFieldEnum)} FROM "Operation" o
    LEFT JOIN "ContractVersion" c ON c."tool" = o."tool" AND c."version" = o."contractVersion" ${DEPENDENCY_OF_CONTRACT}
    LEFT JOIN "Attempt" a ON a."operationId" = o."id" AND a."number" = o."attempt"
    WHERE o."id" = ?`,
  contractVersion: `SELECT * FROM "ContractVersion" WHERE "tool" = ? AND "version" = ?`,
  dependency: `SELECT * FROM "Dependency" WHERE "name" = ?`,
  attempt: `SELECT * FROM "Attempt" WHERE "operationId" = ? AND "number" = ?`,
  apiKeyByHash: `SELECT * FROM "ApiKey" WHERE "hash" = ?`,
  runAllowance: `SELECT * FROM "RunAllowance" WHERE "runId" = ?`,
  oldestExpiredLease: `SELECT * FROM "Operation" WHERE "phase" = 'DISPATCHED' AND "leaseExpiresAt" < ? ORDER BY "leaseExpiresAt" LIMIT 1`,
  oldestExpiredApproval: `SELECT * FROM "Operation" WHERE "phase" = 'AWAITING_APPROVAL' AND "approvalExpiresAt" < ?
    ORDER BY "approvalExpiresAt", "id" LIMIT 1`,
} as const;

/** Contract versions never change once written (an edit is a new version): each store keeps the ones it has read. */
export class ContractVersionCache {
  /** A bound, not a policy: far above the number of contract versions a deployment uses. */
  static readonly MAX = 10_000;
  readonly #versions = new Map<string, ContractVersion>();

  async get(
    tool: string,
    version: number,
    read: () => Promise<ContractVersion | null>,
  ): Promise<ContractVersion | null> {
    const key = `${version}@${tool}`;
    const cached = this.#versions.get(key);
    if (cached) return cached;
    const row = await read();
    if (row) {
      if (this.#versions.size >= ContractVersionCache.MAX) this.#versions.clear();
      this.#versions.set(key, row);
    }
    return row;
  }
}

/** The reads, on any executor. */
export class SqlLedgerReads implements LedgerReads {
  constructor(
    protected readonly x: Executor,
    protected readonly codec: ValueCodec,
    protected readonly contracts: ContractVersionCache,
  ) {}

  protected async one<T>(table: Table, sql: string, params: unknown[]): Promise<T | null> {
    const [row] = await this.x.rows(
      sql,
      params.map((value) => this.codec.toDb(value)),
    );
    return fromDb<T>(this.codec, table, row);
  }

  operationByKey(tool: string, idempotencyKey: string): Promise<Operation | null> {
    return this.one(OPERATION, SELECT.operationByKey, [tool, idempotencyKey]);
  }

  latestOfCall(tool: string, callKey: string): Promise<Operation | null> {
    return this.one(OPERATION, SELECT.latestOfCall, [callKey, tool]);
  }

  async contractHead(tool: string): Promise<ContractHead | null> {
    const [row] = await this.x.rows(SELECT.contractHead, [tool]);
    if (!row) return null;
    return {
      version: Number(row.currentVersion),
      dependency: fromDb<Dependency>(this.codec, DEPENDENCY, joinedPart(byAlias(row), "d", "name")),
    };
  }

  async operationContext(id: string): Promise<OperationRows | null> {
    const [row] = await this.x.rows(SELECT.operationContext, [id]);
    if (!row) return null;
    const parts = byAlias(row);
    return {
      op: fromDb<Operation>(this.codec, OPERATION, parts.get("")) as Operation,
      dependency: fromDb<Dependency>(this.codec, DEPENDENCY, joinedPart(parts, "d", "name")),
      attempt: fromDb<Attempt>(this.codec, ATTEMPT, joinedPart(parts, "a", "id")),
    };
  }

  contractVersion(tool: string, version: number): Promise<ContractVersion | null> {
    return this.contracts.get(tool, version, () => this.one(CONTRACT_VERSION, SELECT.contractVersion, [tool, version]));
  }

  dependency(name: string): Promise<Dependency | null> {
    return this.one(DEPENDENCY, SELECT.dependency, [name]);
  }

  attempt(operationId: string, number: number): Promise<Attempt | null> {
    return this.one(ATTEMPT, SELECT.attempt, [operationId, number]);
  }

  apiKeyByHash(hash: string): Promise<ApiKey | null> {
    return this.one(API_KEY, SELECT.apiKeyByHash, [hash]);
  }

  runAllowance(runId: string): Promise<RunAllowance | null> {
    return this.one(RUN_ALLOWANCE, SELECT.runAllowance, [runId]);
  }

  /** The DISPATCHED operation whose lease expired first, before `now` (not locked: see LedgerTx). */
  oldestExpiredLease(now: Date): Promise<Operation | null> {
    return this.one(OPERATION, SELECT.oldestExpiredLease, [now]);
  }

  /** The AWAITING_APPROVAL operation whose approval request expired first, before `now` (not locked either). */
  oldestExpiredApproval(now: Date): Promise<Operation | null> {
    return this.one(OPERATION, SELECT.oldestExpiredApproval, [now]);
  }
}

/** The reads of a store, each one run through `around` (SQLite waits for its connection's turn). */
export function storeReads(reads: SqlLedgerReads, around: <T>(work: () => Promise<T>) => Promise<T>): LedgerReads {
  return {
    operationByKey: (tool, key) => around(() => reads.operationByKey(tool, key)),
    latestOfCall: (tool, callKey) => around(() => reads.latestOfCall(tool, callKey)),
    contractHead: (tool) => around(() => reads.contractHead(tool)),
    operationContext: (id) => around(() => reads.operationContext(id)),
    contractVersion: (tool, version) => around(() => reads.contractVersion(tool, version)),
    dependency: (name) => around(() => reads.dependency(name)),
    attempt: (operationId, number) => around(() => reads.attempt(operationId, number)),
    apiKeyByHash: (hash) => around(() => reads.apiKeyByHash(hash)),
    runAllowance: (runId) => around(() => reads.runAllowance(runId)),
  };
}

/** One statement with its values in the engine's representation. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** `ifNew`: a row with the same key is left alone (the statement changes no row) instead of failing. */
export function insertStatement(codec: ValueCodec, table: Table, row: object, ifNew = false): Statement {
  const entries = Object.entries(row);
  return {
    sql: `${insertSql(
      table,
      entries.map(([column]) => column),
    )}${ifNew ? " ON CONFLICT DO NOTHING" : ""}`,
    params: entries.map(([, value]) => codec.toDb(value)),
  };
}

/** `"a" = ?, "b" = ?`: a placeholder for each column, joined by `separator`. */
function placeholders(columns: [string, unknown][], separator: string): string {
  return columns.map(([column]) => `${q(column)} = ?`).join(separator);
}

/** UPDATE ... WHERE the key columns match. */
export function updateStatement(codec: ValueCodec, table: Table, changes: object, where: Row): Statement {
  const set = defined(changes as Row);
  const keys = Object.entries(where);
  return {
    sql: `UPDATE ${q(table.name)} SET ${placeholders(set, ", ")} WHERE ${placeholders(keys, " AND ")}`,
    params: [...set, ...keys].map(([, value]) => codec.toDb(value)),
  };
}

/**
 * Writes a run's allowance only if its use is still what the command saw (the same retries and backoff used, exhausted
 * or not): of two commands spending the last of it at once, the second matches no row.
 */
export function runAllowanceUpdate(
  codec: ValueCodec,
  runId: string,
  seen: RunAllowanceSeen,
  changes: RunAllowanceChanges,
): Statement {
  const set = defined(changes);
  const exhausted = seen.exhaustedAt === null ? "IS NULL" : "IS NOT NULL";
  return {
    sql:
      `UPDATE "RunAllowance" SET ${placeholders(set, ", ")} ` +
      `WHERE "runId" = ? AND "retriesUsed" = ? AND "backoffUsedMs" = ? AND "exhaustedAt" ${exhausted}`,
    params: [...set.map(([, value]) => value), runId, seen.retriesUsed, seen.backoffUsedMs].map((value) =>
      codec.toDb(value),
    ),
  };
}
