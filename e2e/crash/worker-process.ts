// Starts e2e/crash/worker.ts as a real node process and collects the events it wrote before it ended or was killed.
import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "../fixtures/test-env";
import type { WorkerConfig, WorkerEvent } from "./matrix";

const WORKER = path.join(REPO_ROOT, "e2e", "crash", "worker.ts");
/** A worker that neither finishes nor dies in this time is a hang, and the case fails. */
const WORKER_DEADLINE_MS = 90_000;

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  events: WorkerEvent[];
  stderr: string;
}

export interface WorkerProcess {
  pid: number;
  exit: Promise<WorkerExit>;
}

export function startWorker(config: WorkerConfig): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, JSON.stringify(config)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`could not start ${WORKER}`);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const deadline = setTimeout(() => child.kill("SIGKILL"), WORKER_DEADLINE_MS);
  const exit = new Promise<WorkerExit>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(deadline);
      const events = stdout
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as WorkerEvent);
      resolve({ code, signal, events, stderr });
    });
  });
  return { pid: child.pid, exit };
}

/** The worker's story in one line per event, for failure messages. */
export function describeExit(exit: WorkerExit): string {
  const events = exit.events.map((e) => (e.type === "log" ? e.line : JSON.stringify(e))).join("\n  ");
  return `exit code ${exit.code}, signal ${exit.signal}\n  ${events}\n${exit.stderr.slice(0, 2000)}`;
}
