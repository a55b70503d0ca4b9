// `npm run seed:large -- --operations 1000000`: a large synthetic ledger for performance work (console at scale, benchmarks).
// Rows are marked synthetic (agentId "synthetic", one audit record each saying so); the demo contracts are loaded first.
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { sqliteFilePath } from "../lib/config/database-url";
import { parseEnv } from "../lib/config/env";
import { createDb } from "../lib/db";
import { DEMO_CONTRACTS } from "../lib/demo/contracts";
import type { Prisma } from "../lib/generated/prisma/client";
import { canonicalJson, sha256 } from "../lib/ledger/canonical-json";
import { putContract } from "../lib/ledger/contracts";
import { applySqliteSettings } from "../lib/sqlite-settings";
import { ulid } from "ulid";
import { prepareDatabase } from "./prepare-database";

const BATCH = 5000;
/** Roughly what a busy ledger looks like: mostly finished, a tail needing people. */
const PHASE_MIX: [string, number][] = [
  ["CONFIRMED", 0.86],
  ["FAILED", 0.04],
  ["RECONCILED", 0.03],
  ["UNKNOWN", 0.02],
  ["AWAITING_APPROVAL", 0.02],
  ["RETRY_SCHEDULED", 0.015],
  ["REJECTED", 0.01],
  ["PLANNED", 0.005],
];

function phaseAt(x: number): string {
  let acc = 0;
  for (const [phase, share] of PHASE_MIX) {
    acc += share;
    if (x < acc) return phase;
  }
  return "CONFIRMED";
}

/** The text form Prisma's SQLite adapter stores DateTime in, so range filters compare like with like. */
const sqliteTime = (d: Date | string | null | undefined): string | null =>
  d ? new Date(d).toISOString().replace("Z", "+00:00") : null;

function insertSqlite(db: Database.Database, ops: Prisma.OperationCreateManyInput[], audit: Prisma.AuditEventCreateManyInput[]): void {
  const insertOp = db.prepare(
    `INSERT INTO "Operation" (id, tool, contractVersion, effect, idempotencyKey, argsJson, argsHash, runId, agentId, phase, attempt, evidence, providerId, firstDispatchedAt, fence, version, createdAt, updatedAt)
     VALUES (@id, @tool, @contractVersion, @effect, @idempotencyKey, @argsJson, @argsHash, @runId, @agentId, @phase, @attempt, @evidence, @providerId, @firstDispatchedAt, 0, 0, @createdAt, @updatedAt)`,
  );
  const insertAudit = db.prepare(
    `INSERT INTO "AuditEvent" (id, subjectType, subjectId, actorType, actorId, action, toPhase, reason, createdAt)
     VALUES (@id, @subjectType, @subjectId, @actorType, @actorId, @action, @toPhase, @reason, @createdAt)`,
  );
  db.transaction(() => {
    for (const op of ops) {
      insertOp.run({ ...op, firstDispatchedAt: sqliteTime(op.firstDispatchedAt), createdAt: sqliteTime(op.createdAt), updatedAt: sqliteTime(op.updatedAt) });
    }
    for (const event of audit) insertAudit.run({ ...event, createdAt: sqliteTime(event.createdAt) });
  })();
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { operations: { type: "string", default: "100000" }, days: { type: "string", default: "30" } } });
  const total = Number(values.operations);
  const days = Number(values.days);
  if (!Number.isInteger(total) || total < 1 || total > 50_000_000) throw new Error("--operations must be a whole number from 1 to 50,000,000");
  const config = parseEnv(process.env);
  prepareDatabase(config.DATABASE_URL);
  const client = createDb(config.DATABASE_URL);
  if (config.DATABASE_URL.startsWith("file:")) await applySqliteSettings(client);
  const seeder = { type: "system", id: "system", label: "large seed" } as const;
  const tools = Object.entries(DEMO_CONTRACTS);
  const versions = new Map<string, number>();
  for (const [tool, body] of tools) versions.set(tool, (await putContract(client, tool, body, seeder, new Date())).contract.version);

  const file = sqliteFilePath(config.DATABASE_URL);
  // On SQLite the driver adapter maps every value one by one (about 1,400 rows/s here); plain prepared inserts are ~50x faster.
  const sqlite = file ? new Database(file) : null;
  sqlite?.pragma("journal_mode = WAL");
  const started = Date.now();
  // Keys must be unique per tool, so a second seed run adds rows instead of colliding with the first.
  const runTag = started.toString(36);
  const end = Date.now();
  const span = days * 86_400_000;
  for (let offset = 0; offset < total; offset += BATCH) {
    const ops: Prisma.OperationCreateManyInput[] = [];
    const audit: Prisma.AuditEventCreateManyInput[] = [];
    for (let i = offset; i < Math.min(total, offset + BATCH); i++) {
      // Spread evenly over the window, oldest first, so ids (ULIDs of the creation time) sort like real ones.
      const createdAt = new Date(end - span + Math.floor((span * i) / total));
      const [tool, contract] = tools[i % tools.length]!;
      const phase = phaseAt(((i * 2654435761) % 1000) / 1000);
      const args = canonicalJson({ synthetic: i, customer: `cus_${i % 9973}` });
      const id = ulid(createdAt.getTime());
      const attempt = phase === "PLANNED" || phase === "AWAITING_APPROVAL" ? 0 : 1 + (i % 3 === 0 ? 1 : 0);
      ops.push({
        id,
        tool,
        contractVersion: versions.get(tool)!,
        effect: contract.effect,
        idempotencyKey: `synthetic-${runTag}-${i}`,
        argsJson: args,
        argsHash: sha256(args),
        runId: `run_${Math.floor(i / 50)}`,
        agentId: "synthetic",
        phase,
        attempt,
        evidence: phase === "RECONCILED" ? "applied" : "none",
        providerId: phase === "CONFIRMED" || phase === "RECONCILED" ? `prov_${i}` : null,
        firstDispatchedAt: attempt > 0 ? createdAt : null,
        createdAt,
        updatedAt: createdAt,
      });
      audit.push({
        id: ulid(createdAt.getTime()),
        subjectType: "operation",
        subjectId: id,
        actorType: "system",
        actorId: "large seed",
        action: "operation.seeded",
        toPhase: phase,
        reason: "synthetic operation written by npm run seed:large for performance work",
        createdAt,
      });
    }
    if (sqlite) {
      insertSqlite(sqlite, ops, audit);
    } else {
      await client.$transaction([client.operation.createMany({ data: ops }), client.auditEvent.createMany({ data: audit })]);
    }
    if ((offset / BATCH) % 20 === 0) {
      const done = Math.min(total, offset + BATCH);
      console.log(`seed:large: ${done} / ${total} operations (${Math.round(done / ((Date.now() - started) / 1000))} per second)`);
    }
  }
  sqlite?.close();
  await client.$disconnect();
  console.log(`seed:large: wrote ${total} synthetic operations in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
