// A transaction in which one new operation is still a draft: a command run on it (dispatch, composed with the plan by
// lib/ledger/commands/gateway-call.ts) changes the draft's row in memory instead of updating a row that is not written
// yet, and its other writes wait until the row is inserted. The operation is then written once, in its final state:
// PostgreSQL's one-statement transaction cannot write a row twice, and an attempt must follow its operation.
import type { Attempt, Operation } from "@/lib/platform/generated/prisma/client";
import type { AuditInput } from "@/lib/ledger/audit/append";
import type {
  AttemptChanges,
  DependencyChanges,
  LedgerTx,
  OperationColumns,
  RunAllowanceChanges,
  RunAllowanceSeen,
} from "./types";

export class DraftTx implements LedgerTx {
  /** The draft's row as the commands left it. */
  readonly row: Operation;
  readonly #held: ((tx: LedgerTx) => Promise<void>)[] = [];

  constructor(
    private readonly tx: LedgerTx,
    draft: Operation,
  ) {
    this.row = { ...draft };
  }

  /** Inserts the operation as the commands left it, preceded by `audit`, then every write that waited for it. */
  async write(audit: AuditInput[]): Promise<Operation> {
    await this.tx.insertOperation(this.row);
    await this.tx.appendAudit(audit);
    for (const held of this.#held) await held(this.tx);
    return this.row;
  }

  operationByKey(tool: string, idempotencyKey: string) {
    return this.tx.operationByKey(tool, idempotencyKey);
  }
  latestOfCall(tool: string, callKey: string) {
    return this.tx.latestOfCall(tool, callKey);
  }
  contractHead(tool: string) {
    return this.tx.contractHead(tool);
  }
  operationContext(id: string) {
    return this.tx.operationContext(id);
  }
  contractVersion(tool: string, version: number) {
    return this.tx.contractVersion(tool, version);
  }
  dependency(name: string) {
    return this.tx.dependency(name);
  }
  attempt(operationId: string, number: number) {
    return this.tx.attempt(operationId, number);
  }
  apiKeyByHash(hash: string) {
    return this.tx.apiKeyByHash(hash);
  }
  oldestExpiredLease(now: Date) {
    return this.tx.oldestExpiredLease(now);
  }
  oldestExpiredApproval(now: Date) {
    return this.tx.oldestExpiredApproval(now);
  }
  runAllowance(runId: string) {
    return this.tx.runAllowance(runId);
  }

  insertOperation(op: Operation): Promise<void> {
    return Promise.reject(new Error(`a draft transaction inserts only its own operation, not ${op.id}`));
  }

  /** The draft's row changes in memory, at the version the command read; any other row is updated at once. */
  updateOperation(id: string, version: number, columns: OperationColumns): Promise<boolean> {
    if (id !== this.row.id) return this.tx.updateOperation(id, version, columns);
    if (version !== this.row.version) return Promise.resolve(false);
    Object.assign(this.row, columns);
    return Promise.resolve(true);
  }

  insertAttempt(row: Attempt): Promise<void> {
    this.#held.push((tx) => tx.insertAttempt(row));
    return Promise.resolve();
  }

  updateAttempt(id: string, changes: AttemptChanges): Promise<void> {
    this.#held.push((tx) => tx.updateAttempt(id, changes));
    return Promise.resolve();
  }

  /** A breaker is not the draft's row: written at once, so the command sees whether its version still held. */
  updateDependency(name: string, version: number, changes: DependencyChanges): Promise<boolean> {
    return this.tx.updateDependency(name, version, changes);
  }

  /** A run's allowance is not the draft's row either (a first attempt spends none of it; lib/ledger/runs/run-spend.ts). */
  updateRunAllowance(runId: string, seen: RunAllowanceSeen, changes: RunAllowanceChanges): Promise<boolean> {
    return this.tx.updateRunAllowance(runId, seen, changes);
  }

  appendAudit(inputs: AuditInput[]): Promise<void> {
    this.#held.push((tx) => tx.appendAudit(inputs));
    return Promise.resolve();
  }
}
