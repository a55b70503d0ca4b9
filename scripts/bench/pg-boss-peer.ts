// pg-boss as a peer of the ledger on PostgreSQL: each job is send, fetch, complete, with pg-boss's default options.
import PgBoss from "pg-boss";
import type { QueuePeer } from "./types";
import { benchArgs } from "./workload";

const QUEUE = "bench-charge";

export async function startPgBoss(url: string, poolSize: number, log: (line: string) => void): Promise<QueuePeer> {
  const boss = new PgBoss({ connectionString: url, max: poolSize, supervise: false, schedule: false });
  boss.on("error", (error) => log(`pg-boss: ${String(error)}`));
  await boss.start();
  await boss.createQueue(QUEUE);
  return {
    // Sent, then fetched by the same agent's worker loop (or another agent's job, as a queue does), then completed.
    async job(agent, n) {
      await boss.send(QUEUE, benchArgs(agent, n));
      for (;;) {
        const [job] = await boss.fetch<unknown>(QUEUE);
        if (job) {
          await boss.complete(QUEUE, job.id);
          return;
        }
      }
    },
    // Every completion was awaited by the agent that made it.
    settled: () => Promise.resolve(),
    stop: () => boss.stop({ graceful: false, wait: true }),
  };
}
