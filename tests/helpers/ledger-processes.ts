// Server processes for cross-process race tests: started once, then given jobs that each loads and connects first and
// all start together, optionally meeting at a race barrier (lib/testing/race-barrier.ts) at their contested statement.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { Engine } from "@/lib/platform/db/prisma";
import { SQLITE_WRITE_LOCK, type RaceBarrier, type RacePoint } from "@/lib/testing/race-barrier";
import type { ServerJob, ServerResult } from "./ledger-server-process";

const ENTRY = fileURLToPath(new URL("./ledger-server-process.ts", import.meta.url));

interface ServerProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  lines: AsyncIterator<string>;
  output: Interface;
  errors: () => string;
}

function startProcess(): ServerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY], {
    cwd: process.cwd(),
    env: { ...process.env, OPLEDGER_TEST_HOOKS: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const output = createInterface({ input: child.stdout });
  return { child, lines: output[Symbol.asyncIterator](), output, errors: () => errors };
}

async function nextLine(server: ServerProcess): Promise<string> {
  const line = await server.lines.next();
  if (line.done) throw new Error(`a server process ended early: ${server.errors()}`);
  return line.value;
}

/** Two (or more) server processes, each with its own client and connection pool per job. */
export class ServerProcesses {
  readonly #servers: ServerProcess[];

  constructor(count: number) {
    this.#servers = Array.from({ length: count }, startProcess);
  }

  /**
   * Gives process i job i, waits until every one is connected to `url`, then releases them at the same moment; with a
   * barrier, their contested statements wait there for each other too.
   */
  async runTogether(url: string, jobs: ServerJob[], barrier?: RaceBarrier): Promise<ServerResult[]> {
    const servers = this.#servers.slice(0, jobs.length);
    servers.forEach((server, i) =>
      server.child.stdin.write(`${JSON.stringify({ url, job: jobs[i], barrier: barrier?.setting })}\n`),
    );
    for (const server of servers) expect(await nextLine(server)).toBe("ready");
    for (const server of servers) server.child.stdin.write("go\n");
    return Promise.all(servers.map(async (server) => JSON.parse(await nextLine(server)) as ServerResult));
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.#servers.map(async (server) => {
        const exited = once(server.child, "exit");
        server.child.stdin.end();
        const [code] = (await exited) as [number | null];
        server.output.close();
        if (code !== 0) throw new Error(`a server process failed (exit ${String(code)}): ${server.errors()}`);
      }),
    );
  }
}

/** Where two servers' commands on the same rows meet on an engine (RacePoint says why they differ). */
export function contestedStatement(engine: Engine, write: "update" | "insert" = "update"): RacePoint {
  return engine === "sqlite" ? "sqlite.begin-immediate" : `operation.${write}`;
}

/**
 * The race happened: every contested key gathered all the server processes before any went on. On PostgreSQL the keys
 * are the contested rows; on SQLite the one write lock, which both processes' first transactions reached together.
 */
export function expectRaced(barrier: RaceBarrier, keys: string[], processes = 2): void {
  expect(barrier.timeouts).toEqual([]);
  const met = barrier.met();
  const expected = barrier.point === "sqlite.begin-immediate" ? [SQLITE_WRITE_LOCK] : keys;
  for (const key of expected) expect(new Set(met.get(key)).size, `server processes that met at ${key}`).toBe(processes);
}
