// The demo world's supervisor, in the server process: providers in-process, the demo agent as a child that is killed
// and restarted now and then, and the demo MCP agent in-process, calling the desk through this server's gateway.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createApiKey, revokeApiKey } from "@/lib/platform/auth/api-keys";
import { env as serverEnv } from "@/lib/platform/config/env";
import { hostsVariable } from "@/lib/services/outbound/secrets";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";
import { PAYMENTS_AUTH_ENV, type DemoEnv } from "./config";
import { runDemoMcpAgent } from "./mcp/demo-mcp-agent";
import { startProviderServer, type ProviderServer } from "./providers/server";
import { DEMO_SEED_KEY_ID, ensureDemoContracts } from "./seed";
import { handOverOperations } from "@/lib/ledger/commands/hand-over";

export const DEMO_KEY_NAME = "demo agent (OPLEDGER_DEMO)";
const DEMO_ACTOR: Actor = { type: "system", id: "system", label: "demo world" };
/** Only what the agent needs: not the database URL, not the auth secret. */
const PASSED_ENV = ["PATH", "HOME", "TMPDIR", "LANG", "OPLEDGER_DEMO_PACE_MS", "OPLEDGER_DEMO_AGENT_WORKERS"];

export interface DemoWorldOptions {
  ledger: Ledger;
  /** Where the agents reach the ledger API and the MCP gateway, e.g. http://127.0.0.1:3000. */
  ledgerUrl: string;
  env: DemoEnv;
  /** Keeps the providers' effects and keys across restarts; null for memory only. */
  stateFile: string | null;
  /** The repository root, where scripts/demo-agent.ts lives. */
  rootDir: string;
  log?: (line: string) => void;
  random?: () => number;
  /** Lease of the agent's runs; short, so a killed agent's operations surface soon. */
  agentLeaseMs?: number;
  /** Whether lookups may reach private addresses; default OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on. */
  outboundAllowPrivate?: boolean;
}

export interface DemoWorld {
  providers: ProviderServer;
  /** The running agent's pid, for tests and logs. */
  agentPid: () => number | null;
  stop: () => Promise<void>;
}

/**
 * Starts the demo world: contracts pointing at the providers, the providers, a fresh agent-scoped API key (earlier
 * demo keys are revoked; the key goes to the child by environment and is never printed), and the agent child with a
 * crash schedule and periodic outages of the deployment API. Throws only if the providers cannot listen.
 */
export async function startDemoWorld(options: DemoWorldOptions): Promise<DemoWorld> {
  const { ledger, env } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const random = options.random ?? Math.random;
  const now = new Date();

  // The lookup (in this process) and the agent (in its child) both need the payments API's credentials.
  process.env[PAYMENTS_AUTH_ENV] ||= `Bearer sk_demo_${randomBytes(18).toString("base64url")}`;
  const paymentsAuthorization = process.env[PAYMENTS_AUTH_ENV] ?? null;

  const providers = await startProviderServer({
    port: env.OPLEDGER_DEMO_PROVIDER_PORT,
    defaultFaultRate: env.OPLEDGER_DEMO_FAULT_RATE,
    stateFile: options.stateFile,
    paymentsAuthorization,
    random,
  }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    throw new Error(
      `the demo providers' port ${env.OPLEDGER_DEMO_PROVIDER_PORT} is taken by another process ` +
        "(OPLEDGER_DEMO_PROVIDER_PORT); set it to a free port",
    );
  });
  // The payments secret may go to the providers' host and nowhere else (an operator's own binding is kept).
  process.env[hostsVariable(PAYMENTS_AUTH_ENV)] ??= new URL(providers.url).hostname;
  // The providers listen on loopback, which outbound requests reach only with private addresses allowed; that is
  // decided when the server starts (`npm start` turns it on with the demo), so a demo without it says so once.
  if (!(options.outboundAllowPrivate ?? serverEnv().OPLEDGER_OUTBOUND_ALLOW_PRIVATE === "on")) {
    log(
      `opledger demo: OPLEDGER_OUTBOUND_ALLOW_PRIVATE is off, so the server's lookups of the demo providers on ${providers.url} ` +
        "are refused; set it to on to reconcile demo operations by lookup",
    );
  }
  let key: string;
  let keyId: string;
  try {
    const contracts = await ensureDemoContracts(ledger, providers.url, now);
    if (contracts.keptEdited.length > 0) {
      log(
        `opledger demo: kept the contracts a person edited (${contracts.keptEdited.join(", ")}); their lookups ` +
          `must point at ${providers.url}`,
      );
    }
    const earlier = await ledger.db.apiKey.findMany({
      where: { name: DEMO_KEY_NAME },
      select: { id: true, revokedAt: true },
    });
    for (const old of earlier) if (!old.revokedAt) await revokeApiKey(ledger, old.id, DEMO_ACTOR, now);
    const created = await createApiKey(ledger, { name: DEMO_KEY_NAME, scopes: ["agent"] }, DEMO_ACTOR, now);
    key = created.key;
    keyId = created.record.id;
    // A key is made per start, and an agent key drives only its own operations: the new one takes over the demo
    // agent's earlier operations and the seeded history, so it can resume them.
    await handOverOperations(
      ledger,
      { fromKeyIds: [DEMO_SEED_KEY_ID, ...earlier.map((old) => old.id)], toKeyId: keyId },
      DEMO_ACTOR,
      now,
    );
  } catch (error) {
    await providers.close();
    throw error;
  }

  const script = path.join(options.rootDir, "scripts", "demo-agent.ts");
  const childEnv: NodeJS.ProcessEnv = {
    NODE_ENV: process.env.NODE_ENV,
    OPLEDGER_DEMO_API_KEY: key,
    OPLEDGER_DEMO_LEDGER_URL: options.ledgerUrl,
    OPLEDGER_DEMO_PROVIDER_URL: providers.url,
    OPLEDGER_DEMO_LEASE_MS: String(options.agentLeaseMs ?? 10_000),
    ...(paymentsAuthorization ? { [PAYMENTS_AUTH_ENV]: paymentsAuthorization } : {}),
  };
  for (const name of PASSED_ENV) {
    const value = process.env[name];
    if (value !== undefined) childEnv[name] = value;
  }

  let child: ChildProcess | null = null;
  let stopping = false;
  let quickExits = 0;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, work: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      work();
    }, ms);
    timer.unref();
    timers.add(timer);
  };

  const spawnAgent = (): void => {
    if (stopping) return;
    if (!fs.existsSync(script)) {
      log(`opledger demo: ${script} is missing, so the demo agent cannot run; the providers still do`);
      return;
    }
    const startedAt = Date.now();
    const started = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: options.rootDir,
      env: childEnv,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child = started;
    started.on("error", (error) => log(`opledger demo: the demo agent could not start: ${error.message}`));
    started.on("exit", (code, signal) => {
      if (child === started) child = null;
      if (stopping) return;
      if (signal === "SIGKILL") return; // Our own crash schedule restarts it.
      // An agent that keeps dying at once has a real problem; restarting it forever would only hide it.
      quickExits = Date.now() - startedAt < 10_000 ? quickExits + 1 : 0;
      if (quickExits >= 3) {
        log(
          `opledger demo: the demo agent exited ${code ?? signal} three times right after starting; not restarting it`,
        );
        return;
      }
      later(2000, spawnAgent);
    });
  };

  const scheduleKill = (): void => {
    const every = env.OPLEDGER_DEMO_KILL_EVERY_MS;
    if (every <= 0) return;
    later(every * (0.5 + random()), () => {
      const victim = child;
      if (victim && victim.exitCode === null && victim.signalCode === null) {
        victim.kill("SIGKILL");
        log(
          `opledger demo: killed the demo agent (pid ${victim.pid ?? "?"}, SIGKILL) mid-work: its leases expire ` +
            "and the recovery sweep takes over; restarting it in 3 s",
        );
        later(3000, spawnAgent);
      }
      scheduleKill();
    });
  };

  const scheduleOutage = (inMs: number): void => {
    const every = env.OPLEDGER_DEMO_OUTAGE_EVERY_MS;
    if (every <= 0) return;
    later(inMs, () => {
      providers.faults.add({ tool: "deploy", fault: "outage", durationMs: env.OPLEDGER_DEMO_OUTAGE_MS });
      log(
        `opledger demo: the deployment API is down for ${Math.round(env.OPLEDGER_DEMO_OUTAGE_MS / 1000)} s (a ` +
          "planned outage): watch its breaker open",
      );
      scheduleOutage(every);
    });
  };

  spawnAgent();
  scheduleKill();
  scheduleOutage(20_000);
  // The same key: the gateway plans the desk's calls as this key's operations, handed over at the next start too.
  const mcpAgent = new AbortController();
  const mcpAgentDone = runDemoMcpAgent({
    gatewayUrl: options.ledgerUrl,
    apiKey: key,
    signal: mcpAgent.signal,
    log,
    logCalls: false,
  });
  const killOnExit = (): void => {
    child?.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  log(
    `opledger demo: providers on ${providers.url} (random fault rate ${env.OPLEDGER_DEMO_FAULT_RATE}), demo ` +
      "agent running with its own agent-scoped API key" +
      (env.OPLEDGER_DEMO_KILL_EVERY_MS > 0
        ? `, killed and restarted about every ${Math.round(env.OPLEDGER_DEMO_KILL_EVERY_MS / 1000)} s`
        : "") +
      "; the demo MCP agent calls the desk's tools through the gateway (/mcp)",
  );

  return {
    providers,
    agentPid: () => child?.pid ?? null,
    stop: async () => {
      stopping = true;
      mcpAgent.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      process.off("exit", killOnExit);
      const running = child;
      if (running && running.exitCode === null && running.signalCode === null) {
        const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
        running.kill("SIGTERM");
        const forced = setTimeout(() => running.kill("SIGKILL"), 3000);
        await exited;
        clearTimeout(forced);
      }
      await mcpAgentDone;
      await providers.close();
      await revokeApiKey(ledger, keyId, DEMO_ACTOR, new Date()).catch(() => undefined);
    },
  };
}
