// Runs the agent: as a real node process (e2e/crash/worker.ts), collecting the events it wrote before it ended or was
// killed, or inside the spec's own process when nothing is to kill or stop it.
import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "../fixtures/test-env";
import { runAgent } from "./agent";
import type { KillAt, WorkerConfig, WorkerEvent } from "./matrix";

const WORKER = path.join(REPO_ROOT, "e2e", "crash", "worker.ts");
/** A worker that neither finishes nor dies in this time is a hang, and the case fails. */
const WORKER_DEADLINE_MS = 90_000;

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The harness killed it at the deadline: a hang, never a window reached. */
  timedOut: boolean;
  events: WorkerEvent[];
  stderr: string;
}

type StepEvent = Extract<WorkerEvent, { type: "step" }>;

export interface WorkerProcess {
  pid: number;
  exit: Promise<WorkerExit>;
  /** Resolves once the worker wrote that it reached `step` (it has stopped there if told to). */
  reached(step: KillAt): Promise<StepEvent>;
}

export function startWorker(config: WorkerConfig): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, JSON.stringify(config)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`could not start ${WORKER}`);
  let pending = "";
  let stderr = "";
  let timedOut = false;
  const events: WorkerEvent[] = [];
  const waiting = new Map<string, (event: StepEvent) => void>();
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines.filter((l) => l.trim() !== "")) {
      const event = JSON.parse(line) as WorkerEvent;
      events.push(event);
      if (event.type === "step") waiting.get(event.step)?.(event);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const deadline = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, WORKER_DEADLINE_MS);
  const exit = new Promise<WorkerExit>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, timedOut, events, stderr });
    });
  });
  const reached = (step: KillAt) =>
    new Promise<StepEvent>((resolve, reject) => {
      const seen = events.find((e): e is StepEvent => e.type === "step" && e.step === step);
      if (seen) return resolve(seen);
      waiting.set(step, resolve);
      void exit.then((ended) => reject(new Error(`the worker ended before ${step}:\n${describeExit(ended)}`)));
    });
  return { pid: child.pid, exit, reached };
}

/**
 * The agent inside the spec's process, for runs nothing kills or stops (in the server-side windows the server dies,
 * not the agent): no process to start, which on a loaded 2-core machine costs more than the run itself.
 */
async function runInProcess(config: WorkerConfig): Promise<WorkerExit> {
  const events: WorkerEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<"hang">((resolve) => (timer = setTimeout(() => resolve("hang"), WORKER_DEADLINE_MS)));
  try {
    const ended = await Promise.race([runAgent(config, (e) => events.push(e)).then(() => "done" as const), hang]);
    return { code: ended === "done" ? 0 : null, signal: null, timedOut: ended === "hang", events, stderr: "" };
  } catch (error) {
    const stderr = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { code: 1, signal: null, timedOut: false, events, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs an agent to its end, in the spec's process when `inProcess` (never for one that kills or stops itself). */
export function runWorker(config: WorkerConfig, inProcess: boolean): Promise<WorkerExit> {
  if (!inProcess) return startWorker(config).exit;
  if (config.killAt !== null || config.stopAt) throw new Error("an agent in the spec's process cannot die or stop");
  return runInProcess(config);
}

/** The worker's story in one line per event, for failure messages. */
export function describeExit(exit: WorkerExit): string {
  const events = exit.events.map((e) => (e.type === "log" ? e.line : JSON.stringify(e))).join("\n  ");
  const how = exit.timedOut ? `killed by the harness after ${WORKER_DEADLINE_MS} ms (a hang)` : `signal ${exit.signal}`;
  return `exit code ${exit.code}, ${how}\n  ${events}\n${exit.stderr.slice(0, 2000)}`;
}
