// SQLite under contention: another connection holding a read or write lock on the file gives retried or clearly failed
// requests, never a lost acknowledged write, and the ledger keeps working.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/prisma";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { errorResponse } from "@/lib/api/route";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { LedgerError } from "@/lib/ledger/errors";
import { planOperation } from "@/lib/ledger/commands/plan";
import { agent, at, withContract } from "./helpers/ledger-fixtures";
import { dispatch, outcome } from "./helpers/lifecycle";
import { claimLease } from "@/lib/ledger/commands/lease";
import { testPostgresUrl } from "./helpers/pg-databases";
import { holdSqliteLock, type LockKind } from "./helpers/sqlite-lock-holder";
import { createTestDb, type TestDb } from "./helpers/test-db";

let t: TestDb;

beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => {
  await t.close();
});

/** Rejects instead of hanging when the ledger is wedged. */
function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** A second ledger on the test's file whose connections (Prisma's and the ledger store's) wait only `ms` for a lock. */
function ledgerWithBusyTimeout(ms: number): Ledger {
  const ledger = openLedger(t.url, { sqliteBusyTimeoutMs: ms });
  impatient.push(ledger);
  return ledger;
}
const impatient: Ledger[] = [];
afterEach(async () => {
  await Promise.all(impatient.splice(0).map((ledger) => ledger.close()));
});

type Step = "PLANNED" | "CLAIMED" | "DISPATCHED" | "CONFIRMED";

/** What the ledger acknowledged per idempotency key, and how each refused call failed. */
interface Hammered {
  acknowledged: Map<string, { id: string; step: Step }>;
  refusals: string[];
  /** Operations confirmed while the other connection still held its lock. */
  confirmedUnderLock: number;
}

/**
 * One lane of an agent: plan, claim, dispatch, confirm, again and again, until `until` resolves; a failed call abandons
 * that operation.
 */
async function lane(ledger: Ledger, name: string, until: Promise<void>, into: Hammered): Promise<void> {
  let stop = false;
  void until.then(() => (stop = true));
  for (let n = 0; !stop || n < 3; n++) {
    // Synchronous SQLite calls resolve as microtasks only: give the event loop a turn to notice the release.
    await new Promise((resolve) => setImmediate(resolve));
    const key = `${name}-${n}`;
    const now = at(n * 10);
    try {
      const { operation } = await planOperation(
        ledger,
        { tool: "payments.charge", args: { n }, idempotencyKey: key },
        agent,
        now,
      );
      into.acknowledged.set(key, { id: operation.id, step: "PLANNED" });
      const lease = await claimLease(ledger, operation.id, { workerId: name, leaseMs: 60_000 }, agent, now);
      into.acknowledged.set(key, { id: operation.id, step: "CLAIMED" });
      await dispatch(ledger, operation.id, lease.fence, now);
      into.acknowledged.set(key, { id: operation.id, step: "DISPATCHED" });
      await outcome(ledger, operation.id, { fence: lease.fence, result: "confirmed", providerId: `ch_${key}` }, now);
      into.acknowledged.set(key, { id: operation.id, step: "CONFIRMED" });
      if (!stop) into.confirmedUnderLock++;
    } catch (error) {
      // A refusal must be the ledger's own typed error, never a raw driver or Prisma error.
      into.refusals.push(error instanceof LedgerError ? `${error.code} ${error.status}` : `untyped: ${String(error)}`);
    }
  }
}

/** Every acknowledged step is in the database, and nothing a refused call tried is. */
async function expectNoLostWrite(ledger: Ledger, done: Hammered): Promise<void> {
  const rows = await ledger.db.operation.findMany({
    select: { id: true, idempotencyKey: true, phase: true, fence: true },
  });
  expect(rows.map((r) => r.idempotencyKey).sort()).toEqual([...done.acknowledged.keys()].sort());
  for (const row of rows) {
    const step = done.acknowledged.get(row.idempotencyKey)?.step;
    const expected = {
      PLANNED: ["PLANNED", 0],
      CLAIMED: ["PLANNED", 1],
      DISPATCHED: ["DISPATCHED", 1],
      CONFIRMED: ["CONFIRMED", 1],
    }[step ?? "PLANNED"];
    expect([row.phase, row.fence], `${row.idempotencyKey} acknowledged as ${step}`).toEqual(expected);
  }
}

async function hammerWhileLocked(kind: LockKind, holdMs: number, ledger: Ledger = t.ledger): Promise<Hammered> {
  const done: Hammered = { acknowledged: new Map(), refusals: [], confirmedUnderLock: 0 };
  const holder = await holdSqliteLock(t.file!, kind, holdMs);
  await Promise.all(["a", "b", "c"].map((name) => lane(ledger, name, holder.released, done)));
  await holder.released;
  return done;
}

describe.skipIf(testPostgresUrl() !== null)("SQLite contention (SQLite only: PostgreSQL has no file locks)", () => {
  beforeEach(async () => {
    await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
  });

  it("keeps writing while another connection holds a long read transaction (WAL)", async () => {
    const done = await hammerWhileLocked("read", 1000);
    expect(done.refusals).toEqual([]);
    expect([...done.acknowledged.values()].every((a) => a.step === "CONFIRMED")).toBe(true);
    expect(done.confirmedUnderLock).toBeGreaterThan(0);
    await expectNoLostWrite(t.ledger, done);
  }, 20_000);

  it("gives typed refusals and loses no acknowledged write while another connection holds the write lock past busy_timeout", async () => {
    // A short wait per try, so calls run out of retries (5 tries) while the lock is held, well inside the test's time.
    const ledger = ledgerWithBusyTimeout(100);
    const done = await hammerWhileLocked("write", 4000, ledger);
    // The lock outlasted every retry of some calls: they failed, clearly, and the rest got through after it.
    expect(done.refusals.length).toBeGreaterThan(0);
    expect(new Set(done.refusals)).toEqual(new Set(["database_busy 503"]));
    expect([...done.acknowledged.values()].some((a) => a.step === "CONFIRMED")).toBe(true);
    await expectNoLostWrite(t.ledger, done);
    const answer = errorResponse(new LedgerError("database_busy", "locked"));
    expect([answer.status, answer.headers.get("retry-after")]).toEqual([503, "1"]);
    // The same ledger keeps working afterwards.
    const after: Hammered = { acknowledged: new Map(), refusals: [], confirmedUnderLock: 0 };
    await within(10_000, lane(ledger, "after", Promise.resolve(), after), "the ledger after the lock");
    expect(after.refusals).toEqual([]);
  }, 30_000);

  it("recovers from SQLITE_BUSY at COMMIT (rollback journal, a reader's SHARED lock): the request fails or retries, the ledger keeps working", async () => {
    expect(await t.db.$queryRawUnsafe("PRAGMA journal_mode = DELETE")).toEqual([{ journal_mode: "delete" }]);
    const ledger = ledgerWithBusyTimeout(100);
    const done = await hammerWhileLocked("read", 2500, ledger);
    expect(done.refusals.length).toBeGreaterThan(0);
    expect(new Set(done.refusals)).toEqual(new Set(["database_busy 503"]));
    await expectNoLostWrite(t.ledger, done);
    const after: Hammered = { acknowledged: new Map(), refusals: [], confirmedUnderLock: 0 };
    await within(10_000, lane(ledger, "after", Promise.resolve(), after), "the ledger after BUSY at COMMIT");
    expect(after.refusals).toEqual([]);
  }, 30_000);

  it("never lets a write outside a transaction join another request's transaction that then rolls back", async () => {
    const { lost } = await writeBesideRolledBackTransaction(t.db);
    expect(lost).toBe(false);
  });
});

/**
 * A write outside any transaction, acknowledged while another request's transaction is open and about to roll back: is
 * it still there afterwards?
 */
async function writeBesideRolledBackTransaction(db: Db): Promise<{ lost: boolean }> {
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  let wrote!: () => void;
  const written = new Promise<void>((resolve) => (wrote = resolve));
  const doomed = db
    .$transaction(async (tx) => {
      await tx.toolContract.create({ data: { tool: "doomed", currentVersion: 1, createdAt: at(0) } });
      opened();
      // Held open until the other write was acknowledged, or long enough that a guarded ledger cannot wait for it.
      await Promise.race([written, new Promise((resolve) => setTimeout(resolve, 300))]);
      throw new Error("rolled back on purpose");
    })
    .catch(() => undefined);
  await open;
  await db.toolContract.create({ data: { tool: "acknowledged", currentVersion: 1, createdAt: at(0) } });
  wrote();
  await doomed;
  const tools = (await db.toolContract.findMany({ select: { tool: true } })).map((row) => row.tool);
  expect(tools).not.toContain("doomed");
  return { lost: !tools.includes("acknowledged") };
}

describe.skipIf(testPostgresUrl() !== null)(
  "Prisma's better-sqlite3 adapter without opledger's guard (canaries: when these fail upstream fixed it, and lib/db/sqlite-connection-guard.ts can go)",
  () => {
    let bare: PrismaClient;
    beforeEach(() => {
      bare = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: t.url, timeout: 100 }) });
    });
    afterEach(async () => {
      await bare.$disconnect();
    });

    it("loses an acknowledged write made beside another request's transaction that rolls back", async () => {
      expect(await writeBesideRolledBackTransaction(bare)).toEqual({ lost: true });
    });

    it("wedges after one SQLITE_BUSY at COMMIT: the next transaction never starts", async () => {
      await bare.$queryRawUnsafe("PRAGMA journal_mode = DELETE");
      const holder = await holdSqliteLock(t.file!, "read", 600);
      const first = await bare
        .$transaction((tx) => tx.toolContract.create({ data: { tool: "first", currentVersion: 1, createdAt: at(0) } }))
        .then(
          () => "committed",
          (error: unknown) => String((error as { cause?: { originalCode?: unknown } }).cause?.originalCode),
        );
      expect(first).toBe("SQLITE_BUSY");
      await holder.released;
      const next = bare.$transaction((tx) =>
        tx.toolContract.create({ data: { tool: "next", currentVersion: 1, createdAt: at(0) } }),
      );
      next.catch(() => undefined);
      await expect(within(1500, next, "the next transaction")).rejects.toThrow("did not finish within 1500 ms");
    });
  },
);
