// `npm run seed:large -- --operations 1000000`: a large synthetic ledger for performance work (console at scale,
// benchmarks).
// Rows are marked synthetic (agentId "synthetic", one audit record each saying so, linked into the audit hash chain);
// the demo
// contracts are loaded first. SQLite and PostgreSQL both get plain batched inserts: Prisma's createMany is far slower
// here.
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { Client } from "pg";
import { sqliteFilePath } from "../lib/platform/config/database-url";
import { parseEnv } from "../lib/platform/config/env";
import { openLedger } from "@/lib/ledger/ledger";
import { DEMO_CONTRACTS } from "../lib/demo/contracts";
import { eventHash, type ChainedEvent } from "@/lib/ledger/audit/chain";
import { canonicalJson, sha256 } from "../lib/ledger/canonical-json";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
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

/** A synthetic operation's row and its one audit event, as the seeder writes them. */
interface SeedOperation {
  id: string;
  tool: string;
  contractVersion: number;
  effect: string;
  idempotencyKey: string;
  argsJson: string;
  argsHash: string;
  runId: string;
  agentId: string;
  phase: string;
  attempt: number;
  evidence: string;
  providerId: string | null;
  firstDispatchedAt: Date | null;
  createdAt: Date;
}

type SeedEvent = Omit<ChainedEvent, "seq">;
type ChainedRow = ChainedEvent & { hash: string };

/**
 * Links a batch's events into the audit hash chain after `head`, as lib/ledger/audit/append.ts links the ledger's own.
 */
function chain(
  head: { seq: number; hash: string },
  events: SeedEvent[],
): { rows: ChainedRow[]; head: { seq: number; hash: string } } {
  let { seq, hash } = head;
  const rows = events.map((event) => {
    seq += 1;
    const row = { ...event, seq };
    hash = eventHash(hash, row);
    return { ...row, hash };
  });
  return { rows, head: { seq, hash } };
}

const OPERATION_COLUMNS = [
  "id",
  "tool",
  "contractVersion",
  "effect",
  "idempotencyKey",
  "argsJson",
  "argsHash",
  "runId",
  "agentId",
  "phase",
  "attempt",
  "evidence",
  "providerId",
  "firstDispatchedAt",
  "createdAt",
  "updatedAt",
] as const;
const EVENT_COLUMNS = [
  "id",
  "subjectType",
  "subjectId",
  "actorType",
  "actorId",
  "onBehalfOf",
  "action",
  "fromPhase",
  "toPhase",
  "reason",
  "data",
  "createdAt",
  "seq",
  "hash",
] as const;

function operationValues(op: SeedOperation, time: (d: Date | null) => unknown): unknown[] {
  return OPERATION_COLUMNS.map((column) =>
    column === "updatedAt"
      ? time(op.createdAt)
      : column === "firstDispatchedAt" || column === "createdAt"
        ? time(op[column])
        : op[column],
  );
}

function eventValues(row: ChainedRow, time: (d: Date | null) => unknown): unknown[] {
  return EVENT_COLUMNS.map((column) => (column === "createdAt" ? time(row.createdAt) : row[column]));
}

type Writer = { write: (ops: SeedOperation[], events: SeedEvent[]) => Promise<void>; close: () => Promise<void> };

/**
 * SQLite: plain prepared inserts; the driver adapter maps every value one by one (about 1,400 rows/s here), ~50x
 * slower.
 */
function sqliteWriter(file: string): Writer {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  // A large page cache keeps the indexes' hot pages in memory; the default 2 MiB thrashes past a few hundred thousand
  // rows.
  db.pragma("cache_size = -262144");
  const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(", ");
  const insertOp = db.prepare(
    `INSERT INTO "Operation" (${quoted(OPERATION_COLUMNS)}) VALUES (${OPERATION_COLUMNS.map(() => "?").join(", ")})`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO "AuditEvent" (${quoted(EVENT_COLUMNS)}) VALUES (${EVENT_COLUMNS.map(() => "?").join(", ")})`,
  );
  const readHead = db.prepare(`SELECT "seq", "hash" FROM "AuditChain" WHERE "id" = 1`);
  const moveHead = db.prepare(`UPDATE "AuditChain" SET "seq" = ?, "hash" = ? WHERE "id" = 1`);
  const batch = db.transaction((ops: SeedOperation[], events: SeedEvent[]) => {
    for (const op of ops) insertOp.run(...operationValues(op, sqliteTime));
    const chained = chain(readHead.get() as { seq: number; hash: string }, events);
    for (const row of chained.rows) insertEvent.run(...eventValues(row, sqliteTime));
    moveHead.run(chained.head.seq, chained.head.hash);
  });
  return {
    write: (ops, events) => Promise.resolve(batch.immediate(ops, events)),
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

/**
 * PostgreSQL: one INSERT ... SELECT FROM unnest(arrays) per table and batch, with the chain's head locked meanwhile.
 */
function postgresWriter(url: string): Writer {
  const pg = new Client({ connectionString: url });
  const connected = pg.connect();
  const types = (columns: readonly string[], typeOf: (column: string) => string) =>
    columns.map((c) => `$${columns.indexOf(c) + 1}::${typeOf(c)}[]`).join(", ");
  const opType = (c: string) =>
    c === "contractVersion" || c === "attempt" ? "int" : c.endsWith("At") ? "timestamp(3)" : "text";
  const eventType = (c: string) => (c === "seq" ? "int" : c === "createdAt" ? "timestamp(3)" : "text");
  const insertOps =
    `INSERT INTO "Operation" (${OPERATION_COLUMNS.map((c) => `"${c}"`).join(", ")}) SELECT * FROM ` +
    `unnest(${types(OPERATION_COLUMNS, opType)})`;
  const insertEvents =
    `INSERT INTO "AuditEvent" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(", ")}) SELECT * FROM ` +
    `unnest(${types(EVENT_COLUMNS, eventType)})`;
  const columnsOf = (rows: unknown[][], width: number) =>
    Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));
  const pgTime = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    write: async (ops, events) => {
      await connected;
      await pg.query("BEGIN");
      try {
        await pg.query(
          insertOps,
          columnsOf(
            ops.map((op) => operationValues(op, pgTime)),
            OPERATION_COLUMNS.length,
          ),
        );
        const head = await pg.query<{ seq: number; hash: string }>(
          `SELECT "seq", "hash" FROM "AuditChain" WHERE "id" = 1 FOR UPDATE`,
        );
        if (!head.rows[0]) throw new Error("the audit chain's head row is missing: is the database migrated?");
        const chained = chain(head.rows[0], events);
        await pg.query(
          insertEvents,
          columnsOf(
            chained.rows.map((row) => eventValues(row, pgTime)),
            EVENT_COLUMNS.length,
          ),
        );
        await pg.query(`UPDATE "AuditChain" SET "seq" = $1, "hash" = $2 WHERE "id" = 1`, [
          chained.head.seq,
          chained.head.hash,
        ]);
        await pg.query("COMMIT");
      } catch (error) {
        await pg.query("ROLLBACK");
        throw error;
      }
    },
    close: async () => {
      await connected;
      await pg.end();
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { operations: { type: "string", default: "100000" }, days: { type: "string", default: "30" } },
  });
  const total = Number(values.operations);
  const days = Number(values.days);
  if (!Number.isInteger(total) || total < 1 || total > 50_000_000)
    throw new Error("--operations must be a whole number from 1 to 50,000,000");
  const config = parseEnv(process.env);
  prepareDatabase(config.DATABASE_URL);
  const ledger = openLedger(config.DATABASE_URL);
  if (config.DATABASE_URL.startsWith("file:")) await applySqliteSettings(ledger.db);
  const seeder = { type: "system", id: "system", label: "large seed" } as const;
  const tools = Object.entries(DEMO_CONTRACTS);
  const versions = new Map<string, number>();
  for (const [tool, body] of tools)
    versions.set(tool, (await putContract(ledger, tool, body, seeder, new Date())).contract.version);

  await ledger.close();

  const file = sqliteFilePath(config.DATABASE_URL);
  const writer = file ? sqliteWriter(file) : postgresWriter(config.DATABASE_URL);
  const started = Date.now();
  // Keys must be unique per tool, so a second seed run adds rows instead of colliding with the first.
  const runTag = started.toString(36);
  const end = Date.now();
  const span = days * 86_400_000;
  try {
    for (let offset = 0; offset < total; offset += BATCH) {
      const ops: SeedOperation[] = [];
      const events: SeedEvent[] = [];
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
          // Zero-padded, so each batch appends to the (tool, idempotencyKey) index instead of writing all over it.
          idempotencyKey: `synthetic-${runTag}-${String(i).padStart(9, "0")}`,
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
        });
        events.push({
          id: ulid(createdAt.getTime()),
          subjectType: "operation",
          subjectId: id,
          actorType: "system",
          actorId: "large seed",
          onBehalfOf: null,
          action: "operation.seeded",
          fromPhase: null,
          toPhase: phase,
          reason: "synthetic operation written by npm run seed:large for performance work",
          data: null,
          createdAt,
        });
      }
      await writer.write(ops, events);
      if ((offset / BATCH) % 20 === 0) {
        const done = Math.min(total, offset + BATCH);
        console.log(
          `seed:large: ${done} / ${total} operations (${Math.round(done / ((Date.now() - started) / 1000))} per second)`,
        );
      }
    }
  } finally {
    await writer.close();
  }
  console.log(`seed:large: wrote ${total} synthetic operations in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
