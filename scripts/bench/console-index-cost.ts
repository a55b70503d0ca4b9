// What the console's indexes (and the search box's term trigger) cost the writers: ledger lifecycles per second with
// and without them, side by side on SQLite.
import { performance } from "node:perf_hooks";
import { freshSqlite, openBenchLedger } from "./databases";
import { ledgerLifecycle, runAgents } from "./ledger-lifecycle";
import { AGENTS } from "./workload";

/** The indexes migration 20261130180000_console_indexes adds. */
export const CONSOLE_INDEXES = ["Operation_phase_updatedAt_id_idx", "Attempt_dispatchedAt_idx"] as const;
/** The search box's index: the trigger migration 20261202100100_search_terms adds (one term row per argument value). */
export const CONSOLE_TRIGGERS = ["Operation_search_terms"] as const;

export interface IndexCostRound {
  withIndexes: number;
  withoutIndexes: number;
}

/**
 * Two fresh ledgers, identical but for the console's indexes, take turns (order alternating per round) running the
 * benchmark's lifecycle (plan, claim, dispatch, confirm) with AGENTS concurrent agents for `seconds` each.
 */
export async function indexWriteCost(
  workDir: string,
  rounds: number,
  seconds: number,
  log: (line: string) => void,
): Promise<IndexCostRound[]> {
  const withIndexes = await openBenchLedger(freshSqlite(workDir, "with-console-indexes"));
  const withoutIndexes = await openBenchLedger(freshSqlite(workDir, "without-console-indexes"));
  try {
    for (const index of CONSOLE_INDEXES) await withoutIndexes.ledger.db.$executeRawUnsafe(`DROP INDEX "${index}"`);
    for (const trigger of CONSOLE_TRIGGERS)
      await withoutIndexes.ledger.db.$executeRawUnsafe(`DROP TRIGGER "${trigger}"`);
    const rate = async (ledger: typeof withIndexes.ledger, offset: number, forSeconds = seconds): Promise<number> => {
      const t0 = performance.now();
      const done = await runAgents(AGENTS, Date.now() + forSeconds * 1000, (agent, n) =>
        ledgerLifecycle(ledger, agent, offset + n),
      );
      return done / ((performance.now() - t0) / 1000);
    };
    // Warm-up: the first lifecycles of a process pay for compiling the queries.
    await rate(withIndexes.ledger, -1_000_000, 1);
    await rate(withoutIndexes.ledger, -1_000_000, 1);
    const results: IndexCostRound[] = [];
    for (let round = 1; round <= rounds; round++) {
      const offset = round * 1_000_000;
      let withRate: number;
      let withoutRate: number;
      if (round % 2 === 1) {
        withRate = await rate(withIndexes.ledger, offset);
        withoutRate = await rate(withoutIndexes.ledger, offset);
      } else {
        withoutRate = await rate(withoutIndexes.ledger, offset);
        withRate = await rate(withIndexes.ledger, offset);
      }
      results.push({ withIndexes: withRate, withoutIndexes: withoutRate });
      log(
        `round ${round}: ${withRate.toFixed(0)} lifecycles/s with the console indexes, ${withoutRate.toFixed(0)} without`,
      );
    }
    return results;
  } finally {
    await withIndexes.ledger.close();
    await withoutIndexes.ledger.close();
  }
}
