// The servers of the server-side crash table, on a database of their own: the doomed one, started to die at a kill
// point (lib/testing/kill-point.ts) and restarted after each death, and on PostgreSQL a second instance that keeps
// serving meanwhile.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { REPO_ROOT, TEST_ADMIN_EMAIL } from "../fixtures/test-env";
import { E2E_ENGINE, freshDatabase, type FreshDatabase } from "../scale-out/support/fresh-database";

const run = promisify(execFile);

/** Where the doomed server dies next: `<point>@<tool>` pairs (OPLEDGER_KILL_AT; lib/testing/kill-point.ts). */
export type Arm = string[];

/** A server that reaches its kill point within this time died there; one that does not is a failed window. */
const KILL_DEADLINE_MS = 90_000;
/**
 * The second instance never sweeps: the doomed server's sweep and auto-reconcile are the ones the windows kill, and a
 * second sweeper would race them to the same operation.
 */
const NO_SWEEP_MS = "3600000";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function refusesConnections(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED";
  }
}

const KILL_LINE = /^opledger-test: killed at (.*)$/m;

export class CrashServers {
  private doomed: ServerProcess;
  /** Pairs the doomed server died at while starting (its sweep runs before it answers its health check). */
  private diedStarting: string[] | null = null;
  private restarting: Promise<void> = Promise.resolve();

  private constructor(
    private readonly database: FreshDatabase,
    first: ServerProcess,
    /** On PostgreSQL, the instance that keeps serving while the doomed one is dead. */
    readonly survivor: ServerProcess | null,
    /** Restarts of the doomed server, with how long each took (ms). */
    readonly restarts: number[],
  ) {
    this.doomed = first;
  }

  static async start(arm: Arm): Promise<CrashServers> {
    const database = await freshDatabase(`crash_server_${extraPort(3)}`);
    const doomed = await CrashServers.startDoomed(database.url, arm);
    const survivor =
      E2E_ENGINE === "postgresql"
        ? await ServerProcess.start({
            name: "surviving instance",
            port: extraPort(4),
            databaseUrl: database.url,
            env: { OPLEDGER_SWEEP_INTERVAL_MS: NO_SWEEP_MS },
          })
        : null;
    return new CrashServers(database, doomed, survivor, []);
  }

  private static startDoomed(databaseUrl: string, arm: Arm): Promise<ServerProcess> {
    return ServerProcess.start({
      name: "doomed server",
      port: extraPort(3),
      databaseUrl,
      env: { OPLEDGER_KILL_AT: arm.join(",") },
    });
  }

  get doomedUrl(): string {
    return this.doomed.url;
  }

  /** Where the agents recover: the surviving instance on PostgreSQL, the restarted server on SQLite. */
  get recoveryUrl(): string {
    return (this.survivor ?? this.doomed).url;
  }

  /**
   * Waits until the doomed server died at a kill point: the hook's line is in its output and nothing listens any more.
   * Returns the pairs the line names. A server that is still alive at the deadline (a hang) fails the windows.
   */
  async killed(): Promise<string[]> {
    const deadline = Date.now() + KILL_DEADLINE_MS;
    for (;;) {
      if (this.diedStarting) {
        const pairs = this.diedStarting;
        this.diedStarting = null;
        return pairs;
      }
      const found = KILL_LINE.exec(this.doomed.logs());
      if (found && (await refusesConnections(this.doomed.url))) {
        // Reaps what is left of its process group (the launcher exits on its child's death).
        await this.doomed.stop("SIGKILL");
        return (found[1] ?? "").split(", ");
      }
      if (Date.now() > deadline) {
        throw new Error(
          `the server did not reach its kill point within ${KILL_DEADLINE_MS} ms:\n${this.doomed.logs().slice(-3000)}`,
        );
      }
      await sleep(200);
    }
  }

  /** Starts the doomed server again, to die at `arm` next (never, if empty); `ready()` resolves once it serves. */
  restart(arm: Arm): void {
    const started = Date.now();
    this.restarting = this.restarting.then(async () => {
      await this.doomed.stop("SIGKILL");
      try {
        this.doomed = await CrashServers.startDoomed(this.database.url, arm);
      } catch (error) {
        // A server whose sweep reaches a listed pair at once dies before it is healthy: that is its death.
        const found = KILL_LINE.exec(error instanceof Error ? error.message : "");
        if (!found) throw error;
        this.diedStarting = (found[1] ?? "").split(", ");
      }
      this.restarts.push(Date.now() - started);
    });
  }

  ready(): Promise<void> {
    return this.restarting;
  }

  /** API keys on this database: the agents', and a person's (the e2e admin, whom the server created at start-up). */
  async keys(): Promise<{ agentKey: string; approver: { key: string; userId: string } }> {
    const cli = async (...args: string[]) => {
      const { stdout } = await run(
        "npx",
        ["tsx", path.join(REPO_ROOT, "e2e", "api", "support", "api-key-cli.ts"), ...args],
        { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: this.database.url, NODE_ENV: "production" } },
      );
      return stdout;
    };
    const keyOf = (stdout: string) => /^ {2}(opl_\S+)\s*$/m.exec(stdout)?.[1] ?? "";
    const [agent, person, user] = await Promise.all([
      cli("create-api-key", "--name", "crash-agent", "--scopes", "agent"),
      cli("create-api-key", "--name", "crash-person", "--scopes", "operator", "--owner", TEST_ADMIN_EMAIL),
      cli("user-id", "--email", TEST_ADMIN_EMAIL),
    ]);
    return { agentKey: keyOf(agent), approver: { key: keyOf(person), userId: /^user (\S+)/m.exec(user)?.[1] ?? "" } };
  }

  async stop(): Promise<void> {
    await this.restarting.catch(() => undefined);
    await this.doomed.stop("SIGTERM");
    await this.survivor?.stop("SIGTERM");
    await this.database.drop();
  }
}
