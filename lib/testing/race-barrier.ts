// A test-only barrier at a contested statement, so a race test can prove its contenders raced: each one that reaches
// the statement reports "reached" to the test and waits until every contender has reached it, then all go at once.
// Off unless the process is a test process (OPLEDGER_TEST_HOOKS=1, "" in a production build, where the check is
// constant) that asked for this statement (OPLEDGER_RACE_BARRIER=<point>@<socket of the test's RaceBarrier>).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * Where commands on the same row meet: on PostgreSQL a command reads without locking and its conditional UPDATE (or
 * INSERT) decides; on SQLite every transaction reads under the write lock, so BEGIN IMMEDIATE is where two writers meet.
 */
export type RacePoint = "operation.update" | "operation.insert" | "sqlite.begin-immediate";

/** The key at sqlite.begin-immediate: one lock for the whole file. */
export const SQLITE_WRITE_LOCK = "the write lock";

/**
 * The hook at a contested statement; `key` names what is contested (an operation id), so contenders on the same row
 * meet. Resolves at once unless this test process asked for a barrier at `point`.
 */
export function raceBarrier(point: RacePoint, key: string): Promise<void> | undefined {
  const setting = process.env.OPLEDGER_RACE_BARRIER;
  if (process.env.OPLEDGER_TEST_HOOKS === "1" && setting?.startsWith(`${point}@`)) {
    return arrive(setting.slice(point.length + 1), point, key);
  }
  return undefined;
}

interface Arrival {
  point: RacePoint;
  key: string;
  pid: number;
}

/** Reports the arrival and waits for "go"; anything else the barrier answers (a timeout) fails the command. */
function arrive(socketPath: string, point: RacePoint, key: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ point, key, pid: process.pid } satisfies Arrival)}\n`));
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = answer.trim();
      if (text === "go") resolve();
      else reject(new Error(text || `the race barrier at ${point} ${key} closed without an answer`));
    });
  });
}

interface Contest {
  /** The pids that reached the key before it was released, one entry per arrival. */
  met: number[];
  waiting: net.Socket[];
  released: boolean;
  timer: NodeJS.Timeout;
}

/**
 * The test's side: collects arrivals at one point, per key, and releases a key's contenders together once `contenders`
 * of them reached it; later arrivals at a released key (a retry) go on at once. A key that does not gather every
 * contender within `timeoutMs` fails its waiting contenders and is reported by `timeouts`.
 */
export class RaceBarrier {
  readonly #contests = new Map<string, Contest>();
  readonly #timeouts: string[] = [];

  private constructor(
    readonly point: RacePoint,
    private readonly contenders: number,
    private readonly timeoutMs: number,
    private readonly server: net.Server,
    private readonly socketPath: string,
  ) {}

  static async open(point: RacePoint, contenders: number, timeoutMs = 10_000): Promise<RaceBarrier> {
    const socketPath = path.join(os.tmpdir(), `opledger-race-${randomBytes(6).toString("hex")}.sock`);
    const server = net.createServer();
    const barrier = new RaceBarrier(point, contenders, timeoutMs, server, socketPath);
    server.on("connection", (socket) => barrier.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, resolve);
    });
    return barrier;
  }

  /** The value of OPLEDGER_RACE_BARRIER for the contenders' processes. */
  get setting(): string {
    return `${this.point}@${this.socketPath}`;
  }

  /** Per key, the pids that met there (reached it before it was released). */
  met(): Map<string, number[]> {
    return new Map([...this.#contests].map(([key, contest]) => [key, contest.released ? contest.met : []]));
  }

  /** What failed to gather every contender in time, one sentence each. */
  get timeouts(): readonly string[] {
    return this.#timeouts;
  }

  async close(): Promise<void> {
    for (const contest of this.#contests.values()) clearTimeout(contest.timer);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    fs.rmSync(this.socketPath, { force: true });
  }

  #accept(socket: net.Socket): void {
    let text = "";
    socket.setEncoding("utf8");
    // A contender that dies while it waits resets its socket; its own process reports that, and the key times out.
    socket.on("error", () => undefined);
    const onData = (chunk: string): void => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end < 0) return;
      socket.off("data", onData);
      this.#arrived(JSON.parse(text.slice(0, end)) as Arrival, socket);
    };
    socket.on("data", onData);
  }

  #arrived(arrival: Arrival, socket: net.Socket): void {
    if (arrival.point !== this.point) {
      socket.end(`a race barrier at ${this.point} was reached at ${arrival.point}\n`);
      return;
    }
    let contest = this.#contests.get(arrival.key);
    if (contest?.released) {
      socket.end("go\n");
      return;
    }
    if (!contest) {
      contest = { met: [], waiting: [], released: false, timer: this.#expire(arrival.key) };
      this.#contests.set(arrival.key, contest);
    }
    contest.met.push(arrival.pid);
    contest.waiting.push(socket);
    if (contest.met.length < this.contenders) return;
    contest.released = true;
    clearTimeout(contest.timer);
    for (const waiting of contest.waiting.splice(0)) waiting.end("go\n");
  }

  #expire(key: string): NodeJS.Timeout {
    return setTimeout(() => {
      const contest = this.#contests.get(key);
      if (!contest || contest.released) return;
      const failure =
        `only ${contest.met.length} of ${this.contenders} contenders reached ${this.point} ${key} ` +
        `within ${this.timeoutMs} ms`;
      this.#timeouts.push(failure);
      // Released, so a straggler is not held again; met() reports nobody met there.
      contest.released = true;
      contest.met = [];
      for (const waiting of contest.waiting.splice(0)) waiting.end(`${failure}\n`);
    }, this.timeoutMs);
  }
}
