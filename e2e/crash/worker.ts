// A worker process of the crash harness: the agent (agent.ts) in a process of its own, which it can SIGKILL or SIGSTOP
// at a boundary; its events go to stdout, one JSON line each.
import { writeSync } from "node:fs";
import { runAgent } from "./agent";
import type { WorkerConfig } from "./matrix";

const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;

runAgent(config, (event) => writeSync(1, `${JSON.stringify(event)}\n`)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
