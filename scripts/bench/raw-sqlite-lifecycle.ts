// The yardstick for the in-process ledger: the same rows and transactions written by hand with raw better-sqlite3,
// under the same group commit as the ledger's SQLite store (lib/ledger/store/sqlite/): the commands waiting together
// share one BEGIN IMMEDIATE ... COMMIT, each in a savepoint, their audit events chained in memory and written with the
// chain's head just before the COMMIT. Each command reads what it must (the operation, its attempt, the breaker) and
// writes what the ledger writes, with prepared statements and no abstraction on top.
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { ulid } from "ulid";
import { eventHash } from "@/lib/ledger/audit/chain";
import { canonicalJson } from "../../lib/ledger/canonical-json";
import { BENCH_CONTRACT, BENCH_TOOL, LEASE_MS, benchArgs } from "./workload";

/** DateTime as Prisma's SQLite adapter stores it, so the rows are the ledger's own. */
const time = (ms: number): string => new Date(ms).toISOString().replace("Z", "+00:00");
/** The label the ledger writes for the benchmark's actor (BENCH_ACTOR), hashed with each event. */
const ACTOR_LABEL = "benchmark";

export interface RawLedger {
  /**
   * `callers` lifecycles at a time (plan, claim, dispatch, outcome: four commands each) until `ms` have passed, then
   * until the ones under way are done; `batch` of the callers' next commands share each COMMIT (1: one COMMIT per
   * command, no group commit). Returns how many lifecycles completed.
   */
  run(ms: number, callers: number, batch: number, agentOffset: number): number;
  close(): void;
}

/** Where one caller is in its lifecycle: the next command to run, and what the earlier ones returned. */
interface Caller {
  agent: number;
  n: number;
  step: "plan" | "claim" | "dispatch" | "confirm";
  id: string;
  fence: number;
}

/** Opens a migrated SQLite file with the ledger's durability settings (WAL, synchronous=FULL, busy timeout). */
export function openRawLedger(file: string, contractVersion: number): RawLedger {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  const s = {
    dependency: db.prepare(`SELECT * FROM "Dependency" WHERE name = ?`),
    operation: db.prepare(`SELECT * FROM "Operation" WHERE id = ?`),
    attempt: db.prepare(`SELECT * FROM "Attempt" WHERE operationId = ? AND number = ?`),
    insertOperation: db.prepare(
      `INSERT INTO "Operation" (id, tool, contractVersion, effect, idempotencyKey, argsJson, argsHash, agentId, phase, attempt,
        evidence, fence, version, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PLANNED', 0, 'none', 0, 0, ?, ?)`,
    ),
    claim: db.prepare(
      `UPDATE "Operation" SET fence = ?, leaseOwner = ?, leaseExpiresAt = ?, version = version + 1, updatedAt = ? WHERE id = ?
        AND version = ?`,
    ),
    dispatch: db.prepare(
      `UPDATE "Operation" SET phase = 'DISPATCHED', attempt = ?, evidence = 'none', notBefore = NULL, firstDispatchedAt =
        COALESCE(firstDispatchedAt, ?), version = version + 1, updatedAt = ? WHERE id = ? AND version = ?`,
    ),
    confirm: db.prepare(
      `UPDATE "Operation" SET phase = 'CONFIRMED', providerId = ?, notBefore = NULL, version = version + 1, updatedAt = ? WHERE
        id = ? AND version = ?`,
    ),
    insertAttempt: db.prepare(
      `INSERT INTO "Attempt" (id, operationId, number, workerId, fence, result, backoffMs, dispatchedAt) VALUES (?, ?, ?, ?, ?,
        'in_flight', 0, ?)`,
    ),
    finishAttempt: db.prepare(`UPDATE "Attempt" SET result = 'confirmed', providerId = ?, finishedAt = ? WHERE id = ?`),
    readHead: db.prepare(`SELECT seq, hash FROM "AuditChain" WHERE id = 1`),
    writeHead: db.prepare(`UPDATE "AuditChain" SET seq = ?, hash = ? WHERE id = 1`),
    begin: db.prepare("BEGIN IMMEDIATE"),
    savepoint: db.prepare("SAVEPOINT command"),
    release: db.prepare("RELEASE command"),
    commit: db.prepare("COMMIT"),
  };
  /** One INSERT per batch for its audit events, as the ledger's BatchAudit writes them; prepared per row count. */
  const insertAudits = new Map<number, Database.Statement>();
  const insertAudit = (rows: number): Database.Statement => {
    let statement = insertAudits.get(rows);
    if (!statement) {
      const values = Array.from(
        { length: rows },
        () => `(?, 'operation', ?, 'system', 'system', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      statement = db.prepare(
        `INSERT INTO "AuditEvent" (id, subjectType, subjectId, actorType, actorId, actorLabel, action, fromPhase, toPhase,
          reason, data, createdAt, seq, hash) VALUES ${values.join(", ")}`,
      );
      insertAudits.set(rows, statement);
    }
    return statement;
  };
  type AuditFields = [
    subjectId: string,
    action: string,
    fromPhase: string | null,
    toPhase: string | null,
    reason: string,
    data: string | null,
  ];
  /** The batch's chain head (null until its first event) and its events, written together by flushAudit. */
  let head: { seq: number; hash: string } | null = null;
  let pending: unknown[] = [];
  let pendingRows = 0;
  const readHead = (): { seq: number; hash: string } => {
    const row = s.readHead.get() as { seq: number | bigint; hash: string };
    return { seq: Number(row.seq), hash: row.hash };
  };
  /** Chains the events at `now` in memory, as lib/ledger/store/sqlite/batch-audit.ts does. */
  const audit = (now: number, events: AuditFields[]): void => {
    let chain = head ?? readHead();
    for (const [subjectId, action, fromPhase, toPhase, reason, data] of events) {
      const seq = chain.seq + 1;
      const id = ulid();
      const hash = eventHash(chain.hash, {
        seq,
        id,
        subjectType: "operation",
        subjectId,
        actorType: "system",
        actorId: "system",
        onBehalfOf: null,
        actorLabel: ACTOR_LABEL,
        action,
        fromPhase,
        toPhase,
        reason,
        data,
        createdAt: new Date(now),
      });
      pending.push(id, subjectId, ACTOR_LABEL, action, fromPhase, toPhase, reason, data, time(now), seq, hash);
      pendingRows += 1;
      chain = { seq, hash };
    }
    head = chain;
  };
  const flushAudit = (): void => {
    if (head && pendingRows > 0) {
      insertAudit(pendingRows).run(...pending);
      s.writeHead.run(head.seq, head.hash);
    }
    head = null;
    pending = [];
    pendingRows = 0;
  };
  /** One group commit: every command in its savepoint, the audit events, then the one COMMIT that makes them durable. */
  const groupCommit = (commands: (() => void)[]): void => {
    s.begin.run();
    try {
      for (const command of commands) {
        s.savepoint.run();
        command();
        s.release.run();
      }
      flushAudit();
      s.commit.run();
    } catch (error) {
      // A benchmark of errors measures nothing: the run stops.
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  };
  type Row = {
    id: string;
    version: number | bigint;
    fence: number | bigint;
    attempt: number | bigint;
    idempotencyKey: string;
    leaseOwner: string | null;
  };
  const load = (id: string): Row => {
    const row = s.operation.get(id) as Row | undefined;
    if (!row) throw new Error(`raw ledger lost operation ${id}`);
    return row;
  };
  const changed = (result: Database.RunResult): void => {
    if (result.changes !== 1) throw new Error("raw ledger: conditional update matched no row");
  };

  const plan = (agent: number, n: number): string => {
    const now = Date.now();
    s.dependency.get(BENCH_CONTRACT.dependency);
    const id = ulid();
    const argsJson = canonicalJson(benchArgs(agent, n));
    const argsHash = createHash("sha256").update(argsJson).digest("hex");
    s.insertOperation.run(
      id,
      BENCH_TOOL,
      contractVersion,
      BENCH_CONTRACT.effect,
      `opk_${ulid()}`,
      argsJson,
      argsHash,
      `bench-agent-${agent}`,
      time(now),
      time(now),
    );
    audit(now, [[id, "operation.planned", null, "PLANNED", "the first attempt may go", null]]);
    return id;
  };
  const claim = (id: string, workerId: string): number => {
    const now = Date.now();
    const op = load(id);
    const fence = Number(op.fence) + 1;
    changed(s.claim.run(fence, workerId, time(now + LEASE_MS), time(now), id, op.version));
    audit(now, [
      [
        id,
        "operation.lease_claimed",
        null,
        null,
        `${workerId} claimed the lease (fence ${fence})`,
        JSON.stringify({ workerId, fence, previousOwner: null, leaseMs: LEASE_MS }),
      ],
    ]);
    return fence;
  };
  const dispatch = (id: string, fence: number): void => {
    const now = Date.now();
    const op = load(id);
    if (Number(op.fence) !== fence) throw new Error("raw ledger: stale fence");
    s.dependency.get(BENCH_CONTRACT.dependency);
    const attempt = Number(op.attempt) + 1;
    changed(s.dispatch.run(attempt, time(now), time(now), id, op.version));
    s.insertAttempt.run(ulid(), id, attempt, op.leaseOwner, fence, time(now));
    audit(now, [
      [
        id,
        "operation.authorized",
        "PLANNED",
        "AUTHORIZED",
        "the first attempt may go",
        JSON.stringify({ attempt, approved: false }),
      ],
      [
        id,
        "operation.dispatched",
        "AUTHORIZED",
        "DISPATCHED",
        `attempt ${attempt} of ${BENCH_CONTRACT.maxAttempts} left with key ${op.idempotencyKey}`,
        JSON.stringify({ attempt, fence, workerId: op.leaseOwner, backoffMs: 0 }),
      ],
    ]);
  };
  const confirm = (id: string, fence: number): void => {
    const now = Date.now();
    const op = load(id);
    if (Number(op.fence) !== fence) throw new Error("raw ledger: stale fence");
    const attempt = s.attempt.get(id, op.attempt) as { id: string } | undefined;
    if (!attempt) throw new Error(`raw ledger: no attempt in flight for ${id}`);
    const providerId = `ch_${id}`;
    changed(s.confirm.run(providerId, time(now), id, op.version));
    s.finishAttempt.run(providerId, time(now), attempt.id);
    audit(now, [
      [
        id,
        "operation.confirmed",
        "DISPATCHED",
        "CONFIRMED",
        `attempt ${Number(op.attempt)} confirmed by the provider as ${providerId}`,
        JSON.stringify({ attempt: Number(op.attempt), result: "confirmed", error: null, providerId }),
      ],
    ]);
    s.dependency.get(BENCH_CONTRACT.dependency);
  };

  /** Runs the caller's next command; true when that finished its lifecycle. */
  const advance = (caller: Caller): boolean => {
    switch (caller.step) {
      case "plan":
        caller.id = plan(caller.agent, caller.n);
        caller.step = "claim";
        return false;
      case "claim":
        caller.fence = claim(caller.id, `bench-agent-${caller.agent}`);
        caller.step = "dispatch";
        return false;
      case "dispatch":
        dispatch(caller.id, caller.fence);
        caller.step = "confirm";
        return false;
      case "confirm":
        confirm(caller.id, caller.fence);
        caller.step = "plan";
        caller.n += 1;
        return true;
    }
  };

  return {
    run(ms, callers, batch, agentOffset) {
      const deadline = Date.now() + ms;
      const all: Caller[] = Array.from({ length: callers }, (_, i) => ({
        agent: agentOffset + i,
        n: 0,
        step: "plan",
        id: "",
        fence: 0,
      }));
      let completed = 0;
      for (;;) {
        // As the ledger's callers: none starts a lifecycle after the deadline, every one under way finishes.
        const waiting = all.filter((caller) => caller.step !== "plan" || Date.now() < deadline);
        if (waiting.length === 0) return completed;
        for (let at = 0; at < waiting.length; at += batch) {
          groupCommit(
            waiting.slice(at, at + batch).map((caller) => () => {
              if (advance(caller)) completed += 1;
            }),
          );
        }
      }
    },
    close: () => db.close(),
  };
}
