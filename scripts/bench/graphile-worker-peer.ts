// Graphile Worker as a peer of the ledger on PostgreSQL: each job is added (addJob), fetched and completed by the
// worker pool that run() starts, with Graphile Worker's default options.
import { Logger, run } from "graphile-worker";
import { Client } from "pg";
import type { QueuePeer } from "./types";
import { benchArgs } from "./workload";

const TASK = "bench_charge";

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A pool of `concurrency` workers on `poolSize` connections. Its workers complete a job after answering the next one's
 * fetch (the COMMIT of the completion is not awaited before `job:complete`), so settled() waits until no job is left:
 * a round is timed until its last completion is durable, as the other contenders' are.
 */
export async function startGraphileWorker(
  url: string,
  poolSize: number,
  concurrency: number,
  log: (line: string) => void,
): Promise<QueuePeer> {
  const waiters = new Map<string, Waiter>();
  // Its default logger writes a line per job; only warnings and errors are worth the benchmark's output.
  const logger = new Logger(() => (level, message) => {
    if (level === "error" || level === "warning") log(`graphile-worker: ${message}`);
  });
  const runner = await run({
    connectionString: url,
    maxPoolSize: poolSize,
    concurrency,
    noHandleSignals: true,
    logger,
    taskList: { [TASK]: () => undefined },
  });
  runner.events.on("job:complete", ({ job, error }) => {
    const key = (job.payload as { key?: string } | null)?.key ?? "";
    const waiter = waiters.get(key);
    waiters.delete(key);
    if (error) waiter?.reject(error);
    else waiter?.resolve();
  });
  const monitor = new Client({ connectionString: url });
  await monitor.connect();
  return {
    // The waiter is in place before the job exists: a worker may finish it before addJob's own answer arrives.
    async job(agent, n) {
      const key = `${agent}:${n}`;
      const done = new Promise<void>((resolve, reject) => waiters.set(key, { resolve, reject }));
      await runner.addJob(TASK, { ...benchArgs(agent, n), key });
      await done;
    },
    // A completed job's row is deleted by its completion, so an empty job table means every completion committed.
    async settled() {
      for (;;) {
        const { rows } = await monitor.query<{ n: number }>("SELECT count(*)::int AS n FROM graphile_worker.jobs");
        if (rows[0]?.n === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
    async stop() {
      await monitor.end();
      await runner.stop();
    },
  };
}
