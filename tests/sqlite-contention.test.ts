// SQLite under contention: another connection holding a read or write lock on the file, starving the checkpoint or
// writing past a transaction's snapshot gives retried or clearly failed requests, never a lost acknowledged write, and
// the ledger keeps working.
import fs from "node:fs";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/platform/db/prisma";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { errorResponse } from "@/lib/platform/http/error-reply";
import { PrismaClient } from "@/lib/platform/generated/prisma/client";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { LedgerError } from "@/lib/ledger/errors";
import { expectNoLostWrite, lane, nothingAcknowledged, type Acknowledged } from "./helpers/acknowledged-lanes";
import { alice, at, withContract } from "./helpers/ledger-fixtures";
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

/** PRAGMA wal_checkpoint on the test's connection: how many WAL frames there are and how many are in the file. */
async function checkpoint(mode: "PASSIVE" | "TRUNCATE"): Promise<{ busy: number; log: number; checkpointed: number }> {
  const [row] = await t.db.$queryRawUnsafe<{ busy: bigint; log: bigint; checkpointed: bigint }[]>(
    `PRAGMA wal_checkpoint(${mode})`,
  );
  return { busy: Number(row!.busy), log: Number(row!.log), checkpointed: Number(row!.checkpointed) };
}

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

/** Resolves once a lane was refused, or when `over` resolves first. */
async function refusedOrOver(done: Acknowledged, over: Promise<void>): Promise<void> {
  let ended = false;
  void over.then(() => (ended = true));
  while (!ended && done.refusals.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Three lanes write while another process holds `kind`. The holder lets go after `holdMs`; with `untilRefused` it lets
 * go as soon as a lane was refused (`holdMs` is then only the limit), so a slow machine cannot close the window before
 * any lane reached it.
 */
async function hammerWhileLocked(
  kind: LockKind,
  holdMs: number,
  ledger: Ledger = t.ledger,
  untilRefused = false,
): Promise<Acknowledged> {
  const done = nothingAcknowledged();
  const holder = await holdSqliteLock(t.file!, kind, holdMs);
  const lanes = Promise.all(["a", "b", "c"].map((name) => lane(ledger, name, holder.released, done)));
  if (untilRefused) {
    await refusedOrOver(done, holder.released);
    holder.release();
  }
  await lanes;
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
    expect(done.confirmedBeforeStop).toBeGreaterThan(0);
    await expectNoLostWrite(t.ledger, done);
  }, 20_000);

  it("gives typed refusals and loses no acknowledged write while another connection holds the write lock past busy_timeout", async () => {
    // A short wait per try, so calls run out of retries (5 tries) while the lock is held, well inside the test's time.
    const ledger = ledgerWithBusyTimeout(100);
    const done = await hammerWhileLocked("write", 15_000, ledger, true);
    // The lock outlasted every retry of some calls: they failed, clearly, and the rest got through after it.
    expect(done.refusals.length).toBeGreaterThan(0);
    expect(new Set(done.refusals)).toEqual(new Set(["database_busy 503"]));
    expect([...done.acknowledged.values()].some((a) => a.step === "CONFIRMED")).toBe(true);
    await expectNoLostWrite(t.ledger, done);
    const answer = errorResponse(new LedgerError("database_busy", "locked"));
    expect([answer.status, answer.headers.get("retry-after")]).toEqual([503, "1"]);
    // The same ledger keeps working afterwards.
    const after = nothingAcknowledged();
    await within(10_000, lane(ledger, "after", Promise.resolve(), after), "the ledger after the lock");
    expect(after.refusals).toEqual([]);
  }, 30_000);

  it(
    "recovers from SQLITE_BUSY at COMMIT (rollback journal, a reader's SHARED lock): the request fails or " +
      "retries, the ledger keeps working",
    async () => {
      expect(await t.db.$queryRawUnsafe("PRAGMA journal_mode = DELETE")).toEqual([{ journal_mode: "delete" }]);
      const ledger = ledgerWithBusyTimeout(100);
      const done = await hammerWhileLocked("read", 15_000, ledger, true);
      expect(done.refusals.length).toBeGreaterThan(0);
      expect(new Set(done.refusals)).toEqual(new Set(["database_busy 503"]));
      await expectNoLostWrite(t.ledger, done);
      const after = nothingAcknowledged();
      await within(10_000, lane(ledger, "after", Promise.resolve(), after), "the ledger after BUSY at COMMIT");
      expect(after.refusals).toEqual([]);
    },
    30_000,
  );

  it("a reader's snapshot starves the checkpoint in WAL mode: the WAL grows, writers go on, nothing acknowledged is lost", async () => {
    await checkpoint("TRUNCATE");
    const done = nothingAcknowledged();
    const holder = await holdSqliteLock(t.file!, "read", 20_000);
    const lanes = Promise.all(["a", "b", "c"].map((name) => lane(t.ledger, name, holder.released, done)));
    while (done.confirmedBeforeStop < 6) await new Promise((resolve) => setTimeout(resolve, 20));
    // Every frame is newer than the reader's snapshot: none may be copied into the database file yet.
    const starved = await checkpoint("PASSIVE");
    const walWhileHeld = fs.statSync(`${t.file}-wal`).size;
    holder.release();
    await lanes;
    await holder.released;
    expect(starved.log).toBeGreaterThan(0);
    expect(starved.checkpointed).toBe(0);
    expect(walWhileHeld).toBeGreaterThan(0);
    expect(done.refusals).toEqual([]);
    await expectNoLostWrite(t.ledger, done);
    // Once the reader let go, the whole WAL is copied back and the file is emptied.
    expect(await checkpoint("TRUNCATE")).toEqual({ busy: 0, log: 0, checkpointed: 0 });
    await expectNoLostWrite(t.ledger, done);
  }, 30_000);

  it(
    "SQLITE_BUSY in WAL mode (a TRUNCATE checkpoint holds the write lock while it waits for a reader): typed " +
      "refusals, nothing acknowledged lost",
    async () => {
      const ledger = ledgerWithBusyTimeout(100);
      const done = nothingAcknowledged();
      const reader = await holdSqliteLock(t.file!, "read", 15_000);
      // Frames the reader's snapshot does not cover, so the checkpoint has to wait for it.
      await lane(ledger, "before", Promise.resolve(), done);
      const checkpointer = await holdSqliteLock(t.file!, "checkpoint", 20_000);
      const lanes = Promise.all(["a", "b", "c"].map((name) => lane(ledger, name, reader.released, done)));
      // The reader lets go once a writer was refused behind the waiting checkpoint, and the checkpoint then completes.
      await refusedOrOver(done, reader.released);
      reader.release();
      await lanes;
      await reader.released;
      await checkpointer.released;
      expect(done.refusals.length).toBeGreaterThan(0);
      expect(new Set(done.refusals)).toEqual(new Set(["database_busy 503"]));
      await expectNoLostWrite(t.ledger, done);
      const after = nothingAcknowledged();
      await within(10_000, lane(ledger, "after", Promise.resolve(), after), "the ledger after the checkpoint");
      expect(after.refusals).toEqual([]);
    },
    30_000,
  );

  it(
    "takes the write lock at a Prisma-side transaction's start: another process's commit waits for it, and no try " +
      "is lost to a stale snapshot",
    async () => {
      let tries = 0;
      let other: Promise<void> | undefined;
      const tool = await auditedTransaction(t.ledger, async (tx, audit) => {
        tries++;
        const tools = await tx.toolContract.count();
        // Another process commits after this read. Were the transaction deferred, its write would then fail at once
        // (SQLITE_BUSY_SNAPSHOT) and the whole transaction run again; holding the write lock, it goes on.
        if (!other) {
          other = (await holdSqliteLock(t.file!, "commit", 10_000)).released;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const created = await tx.toolContract.create({
          data: { tool: `snapshot-${tools}`, currentVersion: 1, createdAt: at(0) },
        });
        audit([
          { subjectType: "contract", subjectId: created.tool, actor: alice, action: "contract.created", at: at(0) },
        ]);
        return created.tool;
      });
      await other;
      expect(tries).toBe(1);
      // The other process's commit landed after this transaction's, once the lock was free.
      expect(await t.db.$queryRawUnsafe<{ user_version: bigint }[]>("PRAGMA user_version")).toEqual([
        { user_version: 1n },
      ]);
      expect(await t.db.toolContract.count({ where: { tool } })).toBe(1);
      expect(await t.db.auditEvent.count({ where: { subjectId: tool } })).toBe(1);
      expect((await verifyAuditChain(t.ledger)).problems).toEqual([]);
    },
  );

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
  "Prisma's better-sqlite3 adapter without opledger's guard (canaries: when these fail upstream fixed it, and " +
    "lib/platform/db/sqlite-connection-guard.ts can go)",
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
