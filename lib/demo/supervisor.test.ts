// The demo supervisor: a fresh agent-scoped key (never logged), contracts pointing at its providers, the agent child
// killed and restarted, and a clean stop.
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApiKey, scopesOf } from "@/lib/auth/api-keys";
import { getContract } from "@/lib/ledger/contracts/contract-versions";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { PAYMENTS_AUTH_ENV, type DemoEnv } from "./config";
import { DEMO_KEY_NAME, startDemoWorld } from "./supervisor";

let t: TestDb;
const savedAuth = process.env[PAYMENTS_AUTH_ENV];

beforeEach(async () => {
  t = await createTestDb();
  delete process.env[PAYMENTS_AUTH_ENV];
});

afterEach(async () => {
  if (savedAuth === undefined) delete process.env[PAYMENTS_AUTH_ENV];
  else process.env[PAYMENTS_AUTH_ENV] = savedAuth;
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
  const lines: string[] = [];
  const world = await startDemoWorld({
    ledger: t.ledger,
    // Nothing listens here: the agent only has to run, not succeed.
    ledgerUrl: "http://127.0.0.1:9",
    env,
    stateFile: null,
    rootDir: process.cwd(),
    log: (line) => lines.push(line),
  });
  try {
    expect((await fetch(`${world.providers.url}/_health`)).status).toBe(200);
    const charge = await getContract(t.ledger, "payments.charge");
    expect(charge.reconcile).toMatchObject({
      method: "lookup",
      urlTemplate: `${world.providers.url}/payments/v1/charges/by-key/{idempotencyKey}`,
      authHeaderEnv: PAYMENTS_AUTH_ENV,
    });
    expect(process.env[PAYMENTS_AUTH_ENV]).toMatch(/^Bearer sk_demo_/);

    const keys = await t.db.apiKey.findMany({ where: { name: DEMO_KEY_NAME } });
    expect(keys.find((k) => k.id === old.record.id)?.revokedAt).not.toBeNull();
    const live = keys.filter((k) => !k.revokedAt);
    expect(live).toHaveLength(1);
    expect(scopesOf(live[0] ?? { scopes: "" })).toEqual(["agent"]);

    const first = world.agentPid();
    expect(first).not.toBeNull();
    await until("the agent to be killed and restarted", () => {
      const now = world.agentPid();
      return now !== null && now !== first;
    });
    expect(alive(first ?? 0)).toBe(false);
    expect(lines.some((l) => l.includes("killed the demo agent") && l.includes("SIGKILL"))).toBe(true);
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
