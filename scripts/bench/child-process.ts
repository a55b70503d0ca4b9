// A helper process of a benchmark (an upstream, a forwarder, a provider, a peer's service or proxy): a Node program
// started by the runner, ready once it printed the line that says where it listens, stopped with SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";

/** How long a helper process may take to print its endpoint (tsx compiles it first). */
const START_MS = 30_000;

export interface BenchProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * `node <nodeArgs>` as a child process, once its stdout matched `ready`: `endpoint` turns the match into its URL (the
 * promise it returns may wait further, for a port that is announced before it listens).
 */
export async function startNodeProcess(
  what: string,
  nodeArgs: string[],
  env: Record<string, string>,
  log: (line: string) => void,
  ready: RegExp,
  endpoint: (match: RegExpExecArray) => string | Promise<string>,
): Promise<BenchProcess> {
  const child: ChildProcess = spawn(process.execPath, nodeArgs, {
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
      const onData = (chunk: Buffer): void => {
        printed += chunk.toString();
        const match = ready.exec(printed);
        if (!match) return;
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        Promise.resolve(endpoint(match)).then(resolve, reject);
      };
      child.stdout?.on("data", onData);
      child.once("exit", (code) => reject(new Error(`the ${what} exited with code ${code}`)));
    });
    // What it prints later is read and dropped, so a chatty helper never blocks on a full pipe.
    child.stdout?.resume();
    return { url, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A script of this repository run through tsx, once it printed "listening on <url>". */
export function startListening(
  what: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<BenchProcess> {
  return startNodeProcess(what, ["--import", "tsx", script, ...args], env, log, /listening on (http:\/\/\S+)/, (m) => {
    if (!m[1]) throw new Error(`the ${what} printed no URL`);
    return m[1];
  });
}
