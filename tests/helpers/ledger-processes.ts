// Server processes for cross-process race tests: started once, then given jobs that each loads and connects first and
// all start together.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
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

  /** Gives process i job i, waits until every one is connected to `url`, then releases them at the same moment. */
  async runTogether(url: string, jobs: ServerJob[]): Promise<ServerResult[]> {
    const servers = this.#servers.slice(0, jobs.length);
    servers.forEach((server, i) => server.child.stdin.write(`${JSON.stringify({ url, job: jobs[i] })}\n`));
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
