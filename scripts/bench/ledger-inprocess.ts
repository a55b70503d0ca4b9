// Benchmark 2: the ledger service called in-process on SQLite (WAL, synchronous=FULL) beside raw better-sqlite3 writing
// the same rows under the same group commit.
import { sqliteFilePath } from "../../lib/platform/config/database-url";
import { freshSqlite, openBenchLedger } from "./databases";
import { ledgerLifecycle, ledgerLifecycleRate, runAgents } from "./ledger-lifecycle";
import { openRawLedger, type RawLedger } from "./raw-sqlite-lifecycle";
import { RoundFigures, runRotated } from "./rounds";
import type { BenchModule } from "./types";
import { AGENTS } from "./workload";

const WARM_UP_MS = 2000;

/** Lifecycles per second of the raw yardstick, `batch` commands per COMMIT, for `ms` (then the ones under way). */
function rawRate(raw: RawLedger, ms: number, batch: number, agentOffset: number): Promise<number> {
  const started = performance.now();
  const done = raw.run(ms, AGENTS, batch, agentOffset);
  return Promise.resolve(done / ((performance.now() - started) / 1000));
}

export const benchmark: BenchModule = {
  name: "ledger-inprocess",
  title: "in-process ledger on SQLite (synchronous=FULL) beside raw better-sqlite3 with the same group commit",
  async run({ rounds, roundSeconds, workDir, log }) {
    const { ledger } = await openBenchLedger(freshSqlite(workDir, "ledger"));
    const rawUrl = freshSqlite(workDir, "raw");
    const { ledger: rawSetup, contractVersion } = await openBenchLedger(rawUrl);
    await rawSetup.close();
    const raw = openRawLedger(sqliteFilePath(rawUrl) ?? "", contractVersion);
    const figures = new RoundFigures();
    const orders: string[][] = [];
    try {
      await runAgents(AGENTS, Date.now() + WARM_UP_MS, (agent, n) => ledgerLifecycle(ledger, agent, -1 - n));
      raw.run(WARM_UP_MS, AGENTS, AGENTS, 1000);
      for (let round = 1; round <= rounds; round++) {
        const ms = roundSeconds * 1000;
        const { results: r, order } = await runRotated(
          {
            ledger: () => ledgerLifecycleRate(ledger, ms, round * 1_000_000),
            // The commands of all 16 callers in one COMMIT: the most the ledger's group commit can share with 16
            // callers.
            "raw, group commit": () => rawRate(raw, ms, AGENTS, 1000 * round),
            // Context only: what group commit buys; the yardstick of the 2026-12-01 run.
            "raw, a COMMIT per transaction": () => rawRate(raw, ms, 1, 1000 * round + 100),
          },
          round,
        );
        orders.push(order);
        figures.record("ledger lifecycles/s", "1/s", r.ledger);
        figures.record("raw better-sqlite3, same group commit, lifecycles/s", "1/s", r["raw, group commit"]);
        figures.record("ledger / raw (same group commit)", "ratio", r.ledger / r["raw, group commit"]);
        figures.record(
          "raw better-sqlite3, a COMMIT per transaction (no group commit), lifecycles/s",
          "1/s",
          r["raw, a COMMIT per transaction"],
        );
        figures.record(
          "ledger / raw without group commit (context only)",
          "ratio",
          r.ledger / r["raw, a COMMIT per transaction"],
        );
        log(
          `round ${round} (${order.join(", ")}): ${order.map((name) => `${name} ${r[name].toFixed(0)}/s`).join(", ")}; ` +
            `ledger / raw (same group commit) ${(r.ledger / r["raw, group commit"]).toFixed(2)}`,
        );
      }
    } finally {
      raw.close();
      await ledger.close();
    }
    return {
      figures: figures.list(),
      targets: [
        {
          label: "ledger at least 50% of raw with the same group commit",
          figure: "ledger / raw (same group commit)",
          statistic: "median",
          comparison: ">=",
          limit: 0.5,
        },
      ],
      notes: {
        settings: "journal_mode=WAL, synchronous=FULL, busy_timeout=5000 on both",
        concurrency: `${AGENTS} callers each`,
        groupCommit:
          `raw: the next commands of all ${AGENTS} callers in one BEGIN IMMEDIATE ... COMMIT, each in a ` +
          `savepoint, audit events chained in memory and written in one INSERT with the chain's head before the COMMIT, ` +
          `as lib/ledger/store/sqlite/ does (which batches whatever is waiting, up to 32)`,
        noGroupCommit:
          "raw, a COMMIT per transaction: the same commands one transaction each; context only (it compares batching with no batching)",
        lifecycle: "plan, claim, dispatch, outcome confirmed: 4 commands, 5 audit records, 1 attempt row",
        roundOrders: orders,
      },
    };
  },
};
