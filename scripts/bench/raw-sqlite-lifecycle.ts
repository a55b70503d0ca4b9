// The yardstick for the in-process ledger: the same rows and transactions written by hand with raw better-sqlite3.
// Each step reads what it must (the operation, its attempt, the breaker) and writes the row update, attempt and
// audit records of the ledger (linked into the audit hash chain), in one transaction per step, with prepared
// statements and no abstraction on top.
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { ulid } from "ulid";
import { eventHash } from "@/lib/ledger/audit/chain";
import { canonicalJson } from "../../lib/ledger/canonical-json";
import { BENCH_CONTRACT, BENCH_TOOL, LEASE_MS, benchArgs } from "./workload";

/** DateTime as Prisma's SQLite adapter stores it, so the rows are the ledger's own. */
const time = (ms: number): string => new Date(ms).toISOString().replace("Z", "+00:00");

export interface RawLedger {
  lifecycle(agent: number, n: number): void;
  close(): void;
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
      `INSERT INTO "Operation" (id, tool, contractVersion, effect, idempotencyKey, argsJson, argsHash, agentId, phase, attempt, evidence, fence, version, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PLANNED', 0, 'none', 0, 0, ?, ?)`,
    ),
    claim: db.prepare(
      `UPDATE "Operation" SET fence = ?, leaseOwner = ?, leaseExpiresAt = ?, version = version + 1, updatedAt = ? WHERE id = ? AND version = ?`,
    ),
    dispatch: db.prepare(
      `UPDATE "Operation" SET phase = 'DISPATCHED', attempt = ?, evidence = 'none', notBefore = NULL, firstDispatchedAt = COALESCE(firstDispatchedAt, ?), version = version + 1, updatedAt = ? WHERE id = ? AND version = ?`,
    ),
    confirm: db.prepare(
      `UPDATE "Operation" SET phase = 'CONFIRMED', providerId = ?, notBefore = NULL, version = version + 1, updatedAt = ? WHERE id = ? AND version = ?`,
    ),
    insertAttempt: db.prepare(
      `INSERT INTO "Attempt" (id, operationId, number, workerId, fence, result, backoffMs, dispatchedAt) VALUES (?, ?, ?, ?, ?, 'in_flight', 0, ?)`,
    ),
    finishAttempt: db.prepare(`UPDATE "Attempt" SET result = 'confirmed', providerId = ?, finishedAt = ? WHERE id = ?`),
    moveHead: db.prepare(`UPDATE "AuditChain" SET seq = seq + ? WHERE id = 1 RETURNING seq, hash`),
    setHeadHash: db.prepare(`UPDATE "AuditChain" SET hash = ? WHERE id = 1`),
    insertAudit: db.prepare(
      `INSERT INTO "AuditEvent" (id, subjectType, subjectId, actorType, actorId, action, fromPhase, toPhase, reason, data, createdAt, seq, hash)
       VALUES (?, 'operation', ?, 'system', 'system', ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
  type AuditFields = [
    subjectId: string,
    action: string,
    fromPhase: string | null,
    toPhase: string | null,
    reason: string,
    data: string | null,
  ];
  /**
   * Appends the events at `now` to the chain, as lib/ledger/audit/append.ts does: move the head, hash, insert, store
   * the last hash.
   */
  const audit = (now: number, events: AuditFields[]): void => {
    const head = s.moveHead.get(events.length) as { seq: number | bigint; hash: string };
    let seq = Number(head.seq) - events.length;
    let hash = head.hash;
    for (const [subjectId, action, fromPhase, toPhase, reason, data] of events) {
      seq += 1;
      const id = ulid();
      const createdAt = new Date(now);
      hash = eventHash(hash, {
        seq,
        id,
        subjectType: "operation",
        subjectId,
        actorType: "system",
        actorId: "system",
        onBehalfOf: null,
        action,
        fromPhase,
        toPhase,
        reason,
        data,
        createdAt,
      });
      s.insertAudit.run(id, subjectId, action, fromPhase, toPhase, reason, data, time(now), seq, hash);
    }
    s.setHeadHash.run(hash);
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

  const plan = db.transaction((agent: number, n: number): string => {
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
  });
  const claim = db.transaction((id: string, workerId: string): number => {
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
  });
  const dispatch = db.transaction((id: string, fence: number): void => {
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
  });
  const confirm = db.transaction((id: string, fence: number): void => {
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
  });

  return {
    lifecycle(agent, n) {
      const id = plan(agent, n);
      const fence = claim(id, `bench-agent-${agent}`);
      dispatch(id, fence);
      confirm(id, fence);
    },
    close: () => db.close(),
  };
}
