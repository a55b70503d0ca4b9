// SQLite durability of acknowledged writes: a writer process holding the only connection (the server's settings) is
// killed right after an acknowledgement, again and again; another process then finds every acknowledged write and an
// intact audit chain. A kill leaves the page cache alone, so it cannot tell synchronous=FULL from OFF: the same runs
// are traced, and every acknowledgement must come after an fsync of the -wal file (docs/durability.md).
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { openLedger } from "@/lib/ledger/ledger";
import { testPostgresUrl } from "./helpers/pg-databases";
import { straceUnavailable, traced, walSyncReport } from "./helpers/wal-sync-trace";

const WRITER = fileURLToPath(new URL("./helpers/sqlite-acknowledging-writer.ts", import.meta.url));
const ROUNDS = 10;
/** Writers started ahead of their round: loading the ledger takes longer than a round. */
const PRELOADED = 3;

const unavailable = testPostgresUrl() === null ? straceUnavailable() : "runs in the SQLite pass";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-kill-"));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Writer {
  file: string;
  /** The traced node process (strace's child), the one that is killed; known once it is ready. */
  pid: Promise<number>;
  lines: AsyncIterator<string>;
  go(): void;
  exited: Promise<unknown>;
  log: string;
}

/** A writer on a fresh copy of the migrated template, started under strace; it waits for go(). */
function startWriter(round: number): Writer {
  const file = path.join(dir, `round-${round}.db`);
  fs.copyFileSync(process.env.OPLEDGER_TEST_TEMPLATE_DB!, file);
  const log = path.join(dir, `trace-${round}.log`);
  const [command, ...args] = traced(log, [process.execPath, "--import", "tsx", WRITER, file]);
  const child = spawn(command!, args, { cwd: process.cwd(), stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const pid = lines.next().then((line) => {
    const ready = /^ready (\d+)$/.exec(String(line.value));
    if (!ready) throw new Error(`the writer did not get ready: ${String(line.value)}`);
    return Number(ready[1]);
  });
  return { file, pid, lines, go: () => child.stdin.write("go\n"), exited: once(child, "exit"), log };
}

/** Lets the writer go, kills it right after its `killAfter`th ack, and collects every ack it gave. */
async function killRound(writer: Writer, killAfter: number): Promise<{ acknowledged: string[]; trace: string }> {
  const pid = await writer.pid;
  writer.go();
  const acknowledged: string[] = [];
  for (let line = await writer.lines.next(); !line.done; line = await writer.lines.next()) {
    const text = String(line.value);
    if (!text.startsWith("ack ")) throw new Error(`the writer said ${text}`);
    acknowledged.push(text.slice("ack ".length));
    // Right after an acknowledged COMMIT; the writer goes on meanwhile, so the kill usually lands mid-transaction.
    if (acknowledged.length === killAfter) process.kill(pid, "SIGKILL");
  }
  await writer.exited;
  return { acknowledged, trace: fs.readFileSync(writer.log, "utf8") };
}

/** What another process finds in the file: every operation's idempotency key, and whether the chain verifies. */
async function readBack(file: string): Promise<{ keys: Set<string>; contract: boolean; chainProblems: string[] }> {
  const ledger = openLedger(`file:${file}`);
  try {
    const operations = await ledger.db.operation.findMany({ select: { idempotencyKey: true } });
    const contract = (await ledger.db.toolContract.count({ where: { tool: "payments.charge" } })) === 1;
    const report = await verifyAuditChain(ledger);
    return { keys: new Set(operations.map((op) => op.idempotencyKey)), contract, chainProblems: report.problems };
  } finally {
    await ledger.close();
  }
}

/** A bare better-sqlite3 writer with the given synchronous setting, acknowledging each INSERT: the trace's control. */
const BARE_WRITER = `
const Database = require("better-sqlite3");
const [file, synchronous] = process.argv.slice(1);
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = " + synchronous);
db.exec("CREATE TABLE acked (key TEXT)");
const insert = db.prepare("INSERT INTO acked VALUES (?)");
for (let n = 0; n < 20; n++) { insert.run("k" + n); process.stdout.write("ack k" + n + "\\n"); }
`;

describe.skipIf(unavailable !== null)(
  `SQLite: acknowledged writes survive a process kill${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    it(
      `${ROUNDS} writers killed right after an acknowledgement: every acknowledged write is there, fsynced before ` +
        "it was acknowledged",
      async () => {
        const writers = Array.from({ length: PRELOADED }, (_, round) => startWriter(round));
        for (let round = 0; round < ROUNDS; round++) {
          const writer = writers.shift()!;
          if (round + PRELOADED < ROUNDS) writers.push(startWriter(round + PRELOADED));
          // The contract, then 1 to 8 operations.
          const { acknowledged, trace } = await killRound(writer, 2 + (round % 8));
          const file = writer.file;
          const found = await readBack(file);
          expect(found.contract, `round ${round}`).toBe(true);
          const planned = acknowledged.filter((key) => key !== "contract");
          expect(
            planned.filter((key) => !found.keys.has(key)),
            `round ${round}: acknowledged but missing`,
          ).toEqual([]);
          expect(found.chainProblems, `round ${round}`).toEqual([]);
          const syncs = walSyncReport(trace, `${file}-wal`);
          // At least every ack the test read: the kill may cut the last write to stdout short.
          expect(syncs.acks, `round ${round}: acks in the trace`).toBeGreaterThanOrEqual(acknowledged.length);
          expect(syncs.walSyncs, `round ${round}`).toBeGreaterThan(0);
          expect(syncs.unsyncedAcks, `round ${round}: acknowledged before the -wal was fsynced`).toEqual([]);
        }
      },
      120_000,
    );

    it("the trace tells synchronous=FULL from NORMAL and OFF (WAL mode syncs the -wal per COMMIT only with FULL)", () => {
      const unsynced = (synchronous: string): number => {
        const file = path.join(dir, `bare-${synchronous}.db`);
        const log = path.join(dir, `bare-${synchronous}.log`);
        const [command, ...args] = traced(log, [process.execPath, "-e", BARE_WRITER, file, synchronous]);
        const run = spawnSync(command!, args, { cwd: process.cwd(), encoding: "utf8" });
        expect(run.status, run.stderr).toBe(0);
        const report = walSyncReport(fs.readFileSync(log, "utf8"), `${file}-wal`);
        expect(report.acks).toBe(20);
        return report.unsyncedAcks.length;
      };
      expect(unsynced("FULL")).toBe(0);
      expect(unsynced("NORMAL")).toBe(20);
      expect(unsynced("OFF")).toBe(20);
    });
  },
);
