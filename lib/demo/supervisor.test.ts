// The demo supervisor: a fresh agent-scoped key (never logged), contracts pointing at its providers (and the desk's),
// the agent child killed and restarted, the demo MCP agent beside it, and a clean stop.
import { createServer, type AddressInfo } from "node:net";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApiKey, scopesOf } from "@/lib/platform/auth/api-keys";
import { getContract } from "@/lib/ledger/contracts/contract-versions";
import { planOperation } from "@/lib/ledger/commands/plan";
import { withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { hostsVariable } from "@/lib/services/outbound/secrets";
import { PAYMENTS_AUTH_ENV, type DemoEnv } from "./config";
import { DEMO_KEY_NAME, startDemoWorld } from "./supervisor";

let t: TestDb;
const PAYMENTS_HOSTS_ENV = hostsVariable(PAYMENTS_AUTH_ENV);
const saved = {
  [PAYMENTS_AUTH_ENV]: process.env[PAYMENTS_AUTH_ENV],
  [PAYMENTS_HOSTS_ENV]: process.env[PAYMENTS_HOSTS_ENV],
};

beforeEach(async () => {
  t = await createTestDb();
  delete process.env[PAYMENTS_AUTH_ENV];
  delete process.env[PAYMENTS_HOSTS_ENV];
});

afterEach(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await t.close();
});

const env: DemoEnv = {
  OPLEDGER_DEMO_PROVIDER_PORT: 0,
  OPLEDGER_DEMO_FAULT_RATE: 0,
  OPLEDGER_DEMO_AGENT_WORKERS: 1,
  OPLEDGER_DEMO_PACE_MS: 1000,
  OPLEDGER_DEMO_KILL_EVERY_MS: 1500,
  OPLEDGER_DEMO_OUTAGE_EVERY_MS: 0,
  OPLEDGER_DEMO_OUTAGE_MS: 1000,
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, probe: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it("starts the providers and the agent with a new agent key, kills and restarts the agent, and stops cleanly", async () => {
  const old = await createApiKey(
    t.ledger,
    { name: DEMO_KEY_NAME, scopes: ["agent"] },
    { type: "system", id: "system", label: "test" },
    new Date(),
  );
  // An operation the previous start's agent planned: the new key must be able to resume it.
  await withContract(t.ledger, "demo.earlier", "PURE");
  const earlier = await planOperation(
    t.ledger,
    { tool: "demo.earlier", args: {} },
    { type: "api_key", id: old.record.id, label: "old demo key", scopes: ["agent"], person: null },
    new Date(),
  );
  const lines: string[] = [];
  const world = await startDemoWorld({
    ledger: t.ledger,
    // Nothing listens here: the agent only has to run, not succeed.
    ledgerUrl: "http://127.0.0.1:9",
    env,
    stateFile: null,
    rootDir: process.cwd(),
    log: (line) => lines.push(line),
    outboundAllowPrivate: false,
  });
  try {
    expect((await fetch(`${world.providers.url}/_health`)).status).toBe(200);
    const charge = await getContract(t.ledger, "payments.charge");
    expect(charge.reconcile).toMatchObject({
      method: "lookup",
      urlTemplate: `${world.providers.url}/payments/v1/charges/by-key/{idempotencyKey}`,
      authHeaderEnv: PAYMENTS_AUTH_ENV,
    });
    expect(PAYMENTS_AUTH_ENV).toMatch(/^OPLEDGER_SECRET_/);
    expect(process.env[PAYMENTS_AUTH_ENV]).toMatch(/^Bearer sk_demo_/);
    // The payments secret is bound to the providers' loopback host, and a demo whose lookups cannot reach it says so.
    expect(process.env[PAYMENTS_HOSTS_ENV]).toBe(new URL(world.providers.url).hostname);
    expect(process.env[PAYMENTS_HOSTS_ENV]).toBe("127.0.0.1");
    expect(lines.some((l) => l.includes("OPLEDGER_OUTBOUND_ALLOW_PRIVATE is off"))).toBe(true);

    const keys = await t.db.apiKey.findMany({ where: { name: DEMO_KEY_NAME } });
    expect(keys.find((k) => k.id === old.record.id)?.revokedAt).not.toBeNull();
    const live = keys.filter((k) => !k.revokedAt);
    expect(live).toHaveLength(1);
    expect(scopesOf(live[0] ?? { scopes: "" })).toEqual(["agent"]);
    const handedOver = await t.db.operation.findUnique({ where: { id: earlier.operation.id } });
    expect(handedOver?.plannedByKeyId).toBe(live[0]?.id);

    const first = world.agentPid();
    expect(first).not.toBeNull();
    await until("the agent to be killed and restarted", () => {
      const now = world.agentPid();
      return now !== null && now !== first;
    });
    expect(alive(first ?? 0)).toBe(false);
    expect(lines.some((l) => l.includes("killed the demo agent") && l.includes("SIGKILL"))).toBe(true);
    // The demo MCP agent calls this server's gateway; nothing listens there, which it says once and keeps trying.
    expect((await getContract(t.ledger, "desk__add_note")).mode).toBe("observe");
    await until("the demo MCP agent to try the gateway", () =>
      lines.some((l) => l.startsWith("opledger demo mcp: cannot reach the gateway at http://127.0.0.1:9/mcp")),
    );
    // The key itself is never logged; not even its prefix.
    expect(lines.join("\n")).not.toMatch(/opl_/);
  } finally {
    const last = world.agentPid();
    await world.stop();
    if (last !== null) expect(alive(last)).toBe(false);
  }
  await expect(fetch(`${world.providers.url}/_health`)).rejects.toThrow();
  expect(await t.db.apiKey.count({ where: { name: DEMO_KEY_NAME, revokedAt: null } })).toBe(0);
}, 60_000);

it("says which variable to change when the providers' port is taken, and makes no key", async () => {
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
  const port = (squatter.address() as AddressInfo).port;
  try {
    await expect(
      startDemoWorld({
        ledger: t.ledger,
        ledgerUrl: "http://127.0.0.1:9",
        env: { ...env, OPLEDGER_DEMO_PROVIDER_PORT: port },
        stateFile: null,
        rootDir: process.cwd(),
        log: () => {},
      }),
    ).rejects.toThrow(`the demo providers' port ${port} is taken by another process (OPLEDGER_DEMO_PROVIDER_PORT)`);
    expect(await t.db.apiKey.count()).toBe(0);
  } finally {
    await new Promise((resolve) => squatter.close(resolve));
  }
});
