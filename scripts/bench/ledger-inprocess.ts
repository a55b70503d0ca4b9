// Benchmark 2: the ledger service called in-process on SQLite (WAL, synchronous=FULL) beside raw better-sqlite3 writing
// the same rows.
import { sqliteFilePath } from "../../lib/config/database-url";
import { freshSqlite, openBenchLedger } from "./databases";
import { ledgerLifecycle, runAgents } from "./ledger-lifecycle";
import { openRawLedger } from "./raw-sqlite-lifecycle";
import type { BenchModule } from "./types";
import { AGENTS } from "./workload";

const WARM_UP_MS = 2000;

function rawRound(raw: ReturnType<typeof openRawLedger>, ms: number, agentOffset: number): number {
  const deadline = Date.now() + ms;
  let n = 0;
  while (Date.now() < deadline) raw.lifecycle(agentOffset, n++);
  return n;
}

export const benchmark: BenchModule = {
  name: "ledger-inprocess",
  title: "in-process ledger on SQLite (synchronous=FULL) beside raw better-sqlite3, lifecycles per second",
  async run({ rounds, roundSeconds, workDir, log }) {
    const { ledger } = await openBenchLedger(freshSqlite(workDir, "ledger"));
    const rawUrl = freshSqlite(workDir, "raw");
    const { ledger: rawSetup, contractVersion } = await openBenchLedger(rawUrl);
    await rawSetup.close();
    const raw = openRawLedger(sqliteFilePath(rawUrl) ?? "", contractVersion);
    const ledgerRates: number[] = [];
    const rawRates: number[] = [];
    const ratios: number[] = [];
    try {
      await runAgents(AGENTS, Date.now() + WARM_UP_MS, (agent, n) => ledgerLifecycle(ledger, agent, -1 - n));
      rawRound(raw, WARM_UP_MS, 1000);
      for (let round = 1; round <= rounds; round++) {
        const ms = roundSeconds * 1000;
        const t0 = performance.now();
        const done = await runAgents(AGENTS, Date.now() + ms, (agent, n) =>
          ledgerLifecycle(ledger, agent, round * 1_000_000 + n),
        );
        const ledgerRate = done / ((performance.now() - t0) / 1000);
        const t1 = performance.now();
        const rawDone = rawRound(raw, ms, 1000 + round);
        const rawRate = rawDone / ((performance.now() - t1) / 1000);
        ledgerRates.push(ledgerRate);
        rawRates.push(rawRate);
        ratios.push(ledgerRate / rawRate);
        log(
          `round ${round}: ledger ${ledgerRate.toFixed(0)}/s, raw ${rawRate.toFixed(0)}/s, ratio ${(ledgerRate / rawRate).toFixed(2)}`,
        );
      }
    } finally {
      raw.close();
      await ledger.close();
    }
    return {
      figures: [
        { label: "ledger lifecycles/s", unit: "1/s", rounds: ledgerRates },
        { label: "raw better-sqlite3 lifecycles/s", unit: "1/s", rounds: rawRates },
        { label: "ledger / raw", unit: "ratio", rounds: ratios },
      ],
      targets: [
        {
          label: "ledger at least 50% of raw",
          figure: "ledger / raw",
          statistic: "median",
          comparison: ">=",
          limit: 0.5,
        },
      ],
      notes: {
        settings: "journal_mode=WAL, synchronous=FULL, busy_timeout=5000 on both",
        ledgerConcurrency: AGENTS,
        rawConcurrency: "1 (better-sqlite3 is synchronous: one transaction at a time on one connection)",
        lifecycle: "plan, claim, dispatch, outcome confirmed: 4 transactions, 5 audit records, 1 attempt row",
      },
    };
  },
};
