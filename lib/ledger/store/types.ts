// The ledger's own data access for operation commands: plain SQL through the database driver, one implementation per
// engine.
import type {
  ApiKey,
  Attempt,
  ContractVersion,
  Dependency,
  Operation,
  RunAllowance,
} from "@/lib/platform/generated/prisma/client";
import type { AuditInput } from "@/lib/ledger/audit/append";

/** The reads an operation command needs; outside a transaction each one sees the latest committed state. */
export interface LedgerReads {
  operationByKey(tool: string, idempotencyKey: string): Promise<Operation | null>;
  /** The latest operation of an MCP call made with the default key (the one its next repeat is measured against). */
  latestOfCall(tool: string, callKey: string): Promise<Operation | null>;
  /**
   * The version a tool's contract is at now and its dependency's breaker, in one query; null when the tool has no
   * contract.
   */
  contractHead(tool: string): Promise<ContractHead | null>;
  /** An operation with its dependency's breaker and its current attempt, in one query. */
  operationContext(id: string): Promise<OperationRows | null>;
  /** A contract version; they never change once written, so the store may answer from memory. */
  contractVersion(tool: string, version: number): Promise<ContractVersion | null>;
  dependency(name: string): Promise<Dependency | null>;
  attempt(operationId: string, number: number): Promise<Attempt | null>;
  /** The API key stored under a secret's sha256 hash (every API request asks, so it is here and not in Prisma). */
  apiKeyByHash(hash: string): Promise<ApiKey | null>;
  /** A run's allowance (docs/run-allowance.md), always read afresh: commands spend it with runAllowanceUpdate. */
  runAllowance(runId: string): Promise<RunAllowance | null>;
}

export interface ContractHead {
  version: number;
  dependency: Dependency | null;
}

export interface OperationRows {
  op: Operation;
  dependency: Dependency | null;
  /** The attempt numbered op.attempt (null before the first dispatch). */
  attempt: Attempt | null;
}

export type AttemptChanges = Partial<Omit<Attempt, "id" | "operationId" | "number">>;
export type DependencyChanges = Partial<Omit<Dependency, "name">>;
export type OperationColumns = Partial<Omit<Operation, "id">>;
/** What a command spends of a run's allowance, or when it marks it exhausted. */
export type RunAllowanceChanges = Partial<
  Pick<RunAllowance, "retriesUsed" | "backoffUsedMs" | "exhaustedAt" | "updatedAt">
>;
/** The use of a run's allowance as a command read it: its write goes through only if it is still so. */
export type RunAllowanceSeen = Pick<RunAllowance, "retriesUsed" | "backoffUsedMs" | "exhaustedAt">;

/**
 * Reads and writes inside one transaction; every write of a command and its audit records commit together or not at
 * all.
 */
export interface LedgerTx extends LedgerReads {
  /** Throws UniqueViolation when (tool, idempotencyKey) or the id is taken. */
  insertOperation(op: Operation): Promise<void>;
  /**
   * Writes the columns only if the row is still at `version`. When it is not (someone else wrote first): false on
   * SQLite; on PostgreSQL, whose writes are sent together at the end, the transaction fails with WriteConflict.
   */
  updateOperation(id: string, version: number, columns: OperationColumns): Promise<boolean>;
  insertAttempt(row: Attempt): Promise<void>;
  updateAttempt(id: string, changes: AttemptChanges): Promise<void>;
  /** Writes the breaker only if the dependency is still at `version`; when it is not, as updateOperation. */
  updateDependency(name: string, version: number, changes: DependencyChanges): Promise<boolean>;
  /**
   * Writes a run's allowance only if its use is still `seen`. When it is not (a concurrent command spent it first): false
   * on SQLite; on PostgreSQL the transaction fails with WriteConflict, as updateOperation.
   */
  updateRunAllowance(runId: string, seen: RunAllowanceSeen, changes: RunAllowanceChanges): Promise<boolean>;
  /** Appends the events to the audit hash chain (lib/ledger/audit/append.ts has the rules). */
  appendAudit(inputs: AuditInput[]): Promise<void>;
  /**
   * The oldest DISPATCHED operation whose lease expired before `now`. On SQLite the transaction holds the write lock,
   * so nobody else moves it meanwhile; on PostgreSQL a concurrent sweep may, and then this command's write fails.
   */
  oldestExpiredLease(now: Date): Promise<Operation | null>;
  /** The AWAITING_APPROVAL operation whose request expired first; the same locking as oldestExpiredLease. */
  oldestExpiredApproval(now: Date): Promise<Operation | null>;
}

export interface LedgerStore extends LedgerReads {
  /**
   * Runs `work` as one transaction: all of its writes are made when it resolves, none when it throws. On SQLite a real
   * transaction (several may share one COMMIT); on PostgreSQL the writes are sent as one statement at the end.
   */
  transaction<T>(work: (tx: LedgerTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Raised inside a transaction when a conditional write matched no row: withWriteRetry runs the transaction again. */
export class WriteConflict extends Error {
  override name = "WriteConflict";
}

/**
 * Recognised by name, not instanceof: a production build may bundle this module twice (the server's start-up code
 * and a route), and the ledger store raises the class of the copy that opened it.
 */
export function isWriteConflict(error: unknown): boolean {
  return error instanceof Error && error.name === "WriteConflict";
}

/** A row with the same key (or id) exists already. */
export class UniqueViolation extends Error {
  override name = "UniqueViolation";
}

/** Recognised by name, not instanceof, for the reason isWriteConflict gives. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && error.name === "UniqueViolation";
}
