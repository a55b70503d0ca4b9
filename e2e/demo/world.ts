// The demo world for a browser spec: the demo providers in this worker, the demo contracts registered through the API
// with lookups pointing at them, and the demo agent.
import { expect, type APIRequestContext } from "@playwright/test";
import { DemoAgent } from "@/lib/demo/agent";
import { demoContracts } from "@/lib/demo/contracts";
import type { FaultRuleInput, ProviderName } from "@/lib/demo/providers/faults";
import { startProviderServer, type ProviderServer } from "@/lib/demo/providers/server";
import type { AppliedEffect } from "@/lib/demo/providers/store";
import { test as loginTest } from "../fixtures/login";
import { uniqueName } from "../fixtures/seed";
import { E2E_BASE_URL, E2E_PORT, TEST_BOOTSTRAP_API_KEY } from "../fixtures/test-env";

/**
 * The providers take the first free port just above the console's: a run's ports stay together (3300 -> 3301..3309).
 */
const PROVIDER_PORTS = Array.from({ length: 9 }, (_, i) => E2E_PORT + 1 + i);

export interface E2eDemoWorld {
  providers: ProviderServer;
  /** The demo agent under an agent id of its own, so it resumes only this world's operations. */
  agent: DemoAgent;
  agentId: string;
  /** Lines the agent logged (it logs only problems): shown when an expectation about it fails. */
  agentLog: string[];
  /** Forces the next request(s) of a provider to fail this way, through the providers' own admin endpoint. */
  fault: (rule: FaultRuleInput) => Promise<void>;
  /** What the provider applied for an operation, as its admin endpoint reports it. */
  effects: (provider: ProviderName, operationId: string) => Promise<AppliedEffect[]>;
  close: () => Promise<void>;
}

async function listenInRange(): Promise<ProviderServer> {
  const refused: string[] = [];
  for (const port of PROVIDER_PORTS) {
    try {
      // Accepts any Authorization: the e2e server's OPLEDGER_SECRET_DEMO_PAYMENTS is a placeholder (serverEnv).
      return await startProviderServer({ port, paymentsAuthorization: null, hangMs: 3000 });
    } catch (error) {
      refused.push(`${port}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`the demo providers found no free port in ${PROVIDER_PORTS.join(", ")} (${refused.join("; ")})`);
}

/**
 * Starts the providers, registers every demo contract for them (admin scope), and makes an agent that talks to both.
 */
export async function startE2eDemoWorld(request: APIRequestContext): Promise<E2eDemoWorld> {
  const providers = await listenInRange();
  try {
    for (const [tool, body] of Object.entries(demoContracts(providers.url))) {
      const answer = await request.put(`/api/v1/contracts/${encodeURIComponent(tool)}`, {
        headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` },
        data: body,
        failOnStatusCode: false,
      });
      expect(answer.status(), `PUT contract ${tool}: ${await answer.text()}`).toBeLessThan(300);
    }
  } catch (error) {
    await providers.close();
    throw error;
  }

  const agentId = uniqueName("demo-agent.e2e");
  const agentLog: string[] = [];
  const agent = new DemoAgent({
    ledgerUrl: E2E_BASE_URL,
    apiKey: TEST_BOOTSTRAP_API_KEY,
    providerUrl: providers.url,
    paymentsAuthorization: null,
    agentId,
    workerPrefix: agentId,
    // Short, so the resumer is not kept waiting by the lease of the call that just gave up (a run does not release it).
    leaseMs: 3000,
    // A hung provider is given up on after a second: the call is then reported as an unknown outcome.
    providerTimeoutMs: 1000,
    maxWaitMs: 1000,
    resumeEveryMs: 300,
    log: (line) => agentLog.push(line),
  });

  const admin = async (method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${providers.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.ok, `${method} ${path} at the demo providers: ${response.status} ${text}`).toBe(true);
    return JSON.parse(text) as unknown;
  };

  return {
    providers,
    agent,
    agentId,
    agentLog,
    fault: async (rule) => {
      await admin("POST", "/_faults", rule);
    },
    effects: async (provider, operationId) => {
      const query = new URLSearchParams({ provider, operationId });
      return ((await admin("GET", `/_effects?${query}`)) as { effects: AppliedEffect[] }).effects;
    },
    close: () => providers.close(),
  };
}

/** `demoWorld`: a fresh demo world for the test, closed after it. */
export const test = loginTest.extend<{ demoWorld: E2eDemoWorld }>({
  demoWorld: async ({ request }, provide) => {
    const world = await startE2eDemoWorld(request);
    try {
      await provide(world);
    } finally {
      await world.close();
    }
  },
});

export { expect } from "../fixtures/login";
