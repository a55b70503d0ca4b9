// A transaction's writes on SQLite: one statement each on the group commit's connection; audit events wait for the
// batch's end (BatchAudit).
import type { Attempt, Operation } from "@/lib/platform/generated/prisma/client";
import type { AuditInput } from "@/lib/ledger/audit/append";
import {
  ATTEMPT,
  DEPENDENCY,
  insertStatement,
  OPERATION,
  runAllowanceUpdate,
  SqlLedgerReads,
  updateStatement,
  type ContractVersionCache,
  type Executor,
  type Statement,
  type ValueCodec,
} from "../sql";
import type {
  AttemptChanges,
  DependencyChanges,
  LedgerTx,
  OperationColumns,
  RunAllowanceChanges,
  RunAllowanceSeen,
} from "../types";
import type { BatchAudit } from "./batch-audit";

export class SqlLedgerTx extends SqlLedgerReads implements LedgerTx {
  constructor(
    x: Executor,
    codec: ValueCodec,
    contracts: ContractVersionCache,
    private readonly audit: BatchAudit,
  ) {
    super(x, codec, contracts);
  }

  private async write({ sql, params }: Statement): Promise<number> {
    return this.x.run(sql, params);
  }

  async insertOperation(op: Operation): Promise<void> {
    await this.write(insertStatement(this.codec, OPERATION, op));
  }

  async updateOperation(id: string, version: number, columns: OperationColumns): Promise<boolean> {
    return (await this.write(updateStatement(this.codec, OPERATION, columns, { id, version }))) === 1;
  }

  async insertAttempt(row: Attempt): Promise<void> {
    await this.write(insertStatement(this.codec, ATTEMPT, row));
  }

  async updateAttempt(id: string, changes: AttemptChanges): Promise<void> {
    await this.write(updateStatement(this.codec, ATTEMPT, changes, { id }));
  }

  async updateDependency(name: string, version: number, changes: DependencyChanges): Promise<boolean> {
    return (await this.write(updateStatement(this.codec, DEPENDENCY, changes, { name, version }))) === 1;
  }

  async updateRunAllowance(runId: string, seen: RunAllowanceSeen, changes: RunAllowanceChanges): Promise<boolean> {
    return (await this.write(runAllowanceUpdate(this.codec, runId, seen, changes))) === 1;
  }

  appendAudit(inputs: AuditInput[]): Promise<void> {
    return this.audit.append(inputs);
  }
}
