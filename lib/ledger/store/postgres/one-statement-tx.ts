// A command's transaction on PostgreSQL: its reads as they come (or from memory), its writes as one statement at the
// end.
import type { Attempt, Operation } from "@/lib/platform/generated/prisma/client";
import { auditRow, type AuditInput } from "@/lib/ledger/audit/append";
import { eventHashTail } from "@/lib/ledger/audit/chain";
import { raceBarrier } from "@/lib/testing/race-barrier";
import type { CommandWrites } from "./command-batch";
import type { CommandMemory } from "./remembered-rows";
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
  ContractHead,
  DependencyChanges,
  LedgerTx,
  OperationColumns,
  OperationRows,
  RunAllowanceChanges,
  RunAllowanceSeen,
} from "../types";

/** The checks of what a command relied on from memory: each row must still be at the version it remembered. */
const STILL = {
  operation: `(SELECT count(*) FROM "Operation" WHERE "id" = ? AND "version" = ?)`,
  dependency: `(SELECT count(*) FROM "Dependency" WHERE "name" = ? AND "version" = ?)`,
  head: `(SELECT count(*) FROM "ToolContract" WHERE "tool" = ? AND "currentVersion" = ?)`,
};

/**
 * A command's transaction on PostgreSQL, without BEGIN and COMMIT: its reads run as they come (each sees the latest
 * committed state, as under READ COMMITTED) or come from the store's memory of earlier commands; its writes are
 * collected and sent at the end as one statement, which PostgreSQL runs atomically (together with those of other
 * commands flushed in the same event-loop turn: command-batch.ts). Every write must change exactly one row (a
 * conditional update at a version that moved changes none), and every row the command took from memory must still be
 * at the version remembered: otherwise opledger_expect_rows aborts the statement and nothing is written
 * (WriteConflict). The audit events are appended inside the same statement by opledger_append_audit, which locks the
 * chain's head only for that statement. A command on an operation this instance handled last costs one round trip.
 */
export class OneStatementTx extends SqlLedgerReads implements LedgerTx {
  readonly #writes: Statement[] = [];
  readonly #written = new Set<string>();
  readonly #audit: AuditInput[] = [];
  /** Rows a conditional write of this command updates only at the version it names ("Operation <id>" → version). */
  readonly #conditioned = new Map<string, number>();

  constructor(
    x: Executor,
    codec: ValueCodec,
    contracts: ContractVersionCache,
    readonly memory: CommandMemory,
    private readonly submit: (command: CommandWrites) => Promise<void>,
  ) {
    super(x, codec, contracts);
  }

  override async operationContext(id: string): Promise<OperationRows | null> {
    const entry = this.memory.fresh ? null : this.memory.rows.operations.get(id);
    const contract = entry ? await this.contractVersion(entry.op.tool, entry.op.contractVersion) : null;
    const recalled = contract ? this.memory.recall(id, () => contract.dependency) : null;
    if (recalled) return { ...recalled.entry, dependency: recalled.dependency };
    const rows = await super.operationContext(id);
    if (rows) {
      this.memory.knowOperation({ op: rows.op, attempt: rows.attempt });
      if (rows.dependency) this.memory.knowDependency(rows.dependency);
    }
    return rows;
  }

  override async contractHead(tool: string): Promise<ContractHead | null> {
    const version = this.memory.recallHead(tool);
    const contract = version === null ? null : await this.contractVersion(tool, version);
    if (version !== null && contract) {
      const dependency = contract.dependency ? this.memory.recallDependency(contract.dependency) : null;
      if (!contract.dependency || dependency) {
        this.memory.relyOnHead(tool, version);
        return { version, dependency };
      }
    }
    const head = await super.contractHead(tool);
    if (head) {
      this.memory.knowHead(tool, head.version);
      if (head.dependency) this.memory.knowDependency(head.dependency);
    }
    return head;
  }

  /** One statement cannot change a row twice (PostgreSQL would apply one of the two): refuse it loudly. */
  #add(target: string, write: Statement): Promise<boolean> {
    if (this.#written.has(target)) throw new Error(`${target} is written twice in one command`);
    this.#written.add(target);
    this.#writes.push(write);
    return Promise.resolve(true);
  }

  async insertOperation(op: Operation): Promise<void> {
    await raceBarrier("operation.insert", `${op.tool} ${op.idempotencyKey}`);
    await this.#add(`Operation ${op.id}`, insertStatement(this.codec, OPERATION, op));
    this.memory.insertedOperation(op);
  }

  async updateOperation(id: string, version: number, columns: OperationColumns): Promise<boolean> {
    await raceBarrier("operation.update", id);
    await this.#add(`Operation ${id}`, updateStatement(this.codec, OPERATION, columns, { id, version }));
    this.#conditioned.set(`Operation ${id}`, version);
    this.memory.updatedOperation(id, columns);
    return true;
  }

  async insertAttempt(row: Attempt): Promise<void> {
    // All parts of the statement run even when the operation's conditional update matched nothing: an attempt a
    // concurrent dispatch already numbered must then count as no row (a WriteConflict), not fail as a duplicate.
    await this.#add(`Attempt ${row.id}`, insertStatement(this.codec, ATTEMPT, row, true));
    this.memory.insertedAttempt(row);
  }

  async updateAttempt(id: string, changes: AttemptChanges): Promise<void> {
    await this.#add(`Attempt ${id}`, updateStatement(this.codec, ATTEMPT, changes, { id }));
    this.memory.updatedAttempt(id, changes);
  }

  async updateDependency(name: string, version: number, changes: DependencyChanges): Promise<boolean> {
    await this.#add(`Dependency ${name}`, updateStatement(this.codec, DEPENDENCY, changes, { name, version }));
    this.#conditioned.set(`Dependency ${name}`, version);
    this.memory.updatedDependency(name, changes);
    return true;
  }

  updateRunAllowance(runId: string, seen: RunAllowanceSeen, changes: RunAllowanceChanges): Promise<boolean> {
    return this.#add(`RunAllowance ${runId}`, runAllowanceUpdate(this.codec, runId, seen, changes));
  }

  appendAudit(inputs: AuditInput[]): Promise<void> {
    this.#audit.push(...inputs);
    return Promise.resolve();
  }

  /**
   * Hands the collected writes, the checks of what came from memory and the audit events to be sent as one statement.
   */
  async flush(): Promise<void> {
    const checks: Statement[] = [];
    const { relied } = this.memory;
    // A row the command updates at the version it relied on needs no check of its own: the update is that check.
    const still = (table: string, sql: string, rows: Map<string, number>): void => {
      for (const [key, version] of rows) {
        if (this.#conditioned.get(`${table} ${key}`) !== version) checks.push({ sql, params: [key, version] });
      }
    };
    still("Operation", STILL.operation, relied.operations);
    still("Dependency", STILL.dependency, relied.dependencies);
    still("ToolContract", STILL.head, relied.heads);
    if (this.#writes.length === 0 && checks.length === 0 && this.#audit.length === 0) return;
    await this.submit({
      writes: this.#writes,
      checks,
      audit: this.#audit.map((input) => auditEventJson(input)),
      targets: [...this.#written],
    });
  }
}

/** An audit event as opledger_append_audit reads it: its row, and the JSON tail its hash covers after the seq. */
export function auditEventJson(input: AuditInput) {
  const row = auditRow(input);
  return { ...row, createdAt: row.createdAt.toISOString(), tail: eventHashTail(row) };
}
