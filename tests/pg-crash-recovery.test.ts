// PostgreSQL crash recovery: agents write through the ledger on a durable cluster of the test's own (fsync and
// synchronous_commit on, never the shared test cluster, which runs with fsync off), the server is stopped with
// `pg_ctl stop -m immediate` (no checkpoint, no clean shutdown) mid-load and started again: every acknowledged write
// is there and the audit chain verifies (docs/durability.md says what this does and does not prove).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { openLedger } from "@/lib/ledger/ledger";
import { migratePostgres } from "@/lib/platform/migrate/postgres";
import { durabilityOf, startThrowawayCluster, type ThrowawayCluster } from "@/scripts/bench/pg-throwaway";
import { auditActionsUpTo, expectNoLostWrite, lane, nothingAcknowledged } from "./helpers/acknowledged-lanes";
import { withContract } from "./helpers/ledger-fixtures";
import { createDatabase, databaseUrl, testPostgresUrl } from "./helpers/pg-databases";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const LANES = 6;
/** Acknowledged steps before the crash: mid-load, with every lane busy. */
const CRASH_AFTER = 60;

const skipped = !testPostgresUrl()
  ? "runs in the PostgreSQL pass"
  : fs.existsSync(path.join(PG_BIN, "pg_ctl"))
    ? null
    : `the PostgreSQL binaries are not in ${PG_BIN} (apt-get install -y postgresql)`;

/** pg_ctl as the cluster's owner: as root it runs as user postgres (as scripts/bench/pg-throwaway.ts starts it). */
function pgCtl(args: string[]): void {
  const command = path.join(PG_BIN, "pg_ctl");
  const [file, argv] =
    process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: ["ignore", "ignore", "pipe"] });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let cluster: ThrowawayCluster | null = null;
let url: string;

beforeAll(async () => {
  if (skipped) return;
  cluster = startThrowawayCluster(await freePort(), true);
  await createDatabase(cluster.url, "opledger");
  url = databaseUrl(cluster.url, "opledger");
  await migratePostgres(url);
}, 60_000);
afterAll(() => {
  cluster?.stop();
});

describe.skipIf(skipped !== null)(`PostgreSQL: crash recovery${skipped ? ` (skipped: ${skipped})` : ""}`, () => {
  it("loses no acknowledged write to `pg_ctl stop -m immediate` under load, and the audit chain verifies", async () => {
    expect(await durabilityOf(url)).toMatchObject({ fsync: "on", synchronous_commit: "on", full_page_writes: "on" });
    const ledger = openLedger(url, { poolSize: 4 });
    const [{ data_directory: dataDirectory }] =
      await ledger.db.$queryRawUnsafe<[{ data_directory: string }]>("SHOW data_directory");
    await withContract(ledger, "payments.charge", "IDEMPOTENT");

    const done = nothingAcknowledged();
    let crash!: () => void;
    const crashed = new Promise<void>((resolve) => (crash = resolve));
    let acks = 0;
    const onAck = (): void => {
      if (++acks !== CRASH_AFTER) return;
      // Immediate: the server processes quit at once, without a checkpoint; recovery replays the WAL from the last one.
      pgCtl(["-D", dataDirectory, "-m", "immediate", "-w", "stop"]);
      crash();
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(ledger, `agent${i}`, crashed, done, onAck)));
    // The server is down, not merely slow: the lanes' calls in flight failed with it.
    await expect(ledger.db.$queryRawUnsafe("SELECT 1")).rejects.toThrow();
    await ledger.close();

    // Starts it again with the options it had (postmaster.opts), replaying the WAL written since the last checkpoint.
    pgCtl(["-D", dataDirectory, "-w", "-t", "30", "restart"]);
    const after = openLedger(url, { poolSize: 2 });
    try {
      expect(done.acknowledged.size).toBeGreaterThan(0);
      await expectNoLostWrite(after, done, false);
      for (const [key, { id, step }] of done.acknowledged) {
        const actions = (
          await after.db.auditEvent.findMany({ where: { subjectId: id }, select: { action: true } })
        ).map((event) => event.action);
        expect(actions, `${key} acknowledged as ${step}`).toEqual(expect.arrayContaining(auditActionsUpTo(step)));
      }
      const chain = await verifyAuditChain(after);
      expect(chain.problems).toEqual([]);
      expect(chain.ok).toBe(true);
      // The ledger works on the recovered database.
      const more = nothingAcknowledged();
      await lane(after, "after", Promise.resolve(), more);
      expect(more.refusals).toEqual([]);
    } finally {
      await after.close();
    }
  }, 60_000);
});
