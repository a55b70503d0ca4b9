// Runs ledger jobs in several server processes at once: each loads and connects first, then all are told to go together.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Readable, Writable } from "node:stream";
import type { ServerJob, ServerResult } from "./ledger-server-process";

const ENTRY = fileURLToPath(new URL("./ledger-server-process.ts", import.meta.url));

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

function start(url: string, job: ServerJob): { child: Child; ready: Promise<void>; result: Promise<ServerResult> } {
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY, url, JSON.stringify(job)], { cwd: process.cwd(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const ready = new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith("ready\n")) resolve();
    });
  });
  const result = once(child, "exit").then(([code]) => {
    if (code !== 0) throw new Error(`server process failed (exit ${String(code)}): ${err}`);
    return JSON.parse(out.slice("ready\n".length)) as ServerResult;
  });
  return { child, ready, result };
}

/** Starts one process per job, waits until every one is connected, then releases them at the same moment. */
export async function runTogether(url: string, jobs: ServerJob[]): Promise<ServerResult[]> {
  const started = jobs.map((job) => start(url, job));
  await Promise.race([Promise.all(started.map((s) => s.ready)), Promise.all(started.map((s) => s.result))]);
  for (const s of started) s.child.stdin.end("go\n");
  return Promise.all(started.map((s) => s.result));
}
