// A helper process of a benchmark (an upstream, a forwarder, a provider, a peer's service): a TypeScript file of this
// repository run by Node through tsx, ready once it prints "listening on <url>", stopped with SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";

/** How long a helper process may take to print its endpoint (tsx compiles it first). */
const START_MS = 30_000;

export interface BenchProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** A script of this repository as a child process, once it printed "listening on <url>". */
export async function startListening(
  what: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<BenchProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  child.stderr?.on("data", (chunk: Buffer) => log(`${what}: ${chunk.toString().trimEnd()}`));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`the ${what} did not start`);
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the ${what} printed no endpoint`)), START_MS);
      let printed = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        printed += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(printed);
        if (!match?.[1]) return;
        clearTimeout(timer);
        resolve(match[1]);
      });
      child.once("exit", (code) => reject(new Error(`the ${what} exited with code ${code}`)));
    });
    return { url, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
