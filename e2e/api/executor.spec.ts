// The TypeScript executor (lib/executor) against the real server and a fake provider on 127.0.0.1: a lost answer is
// never repeated, a transient failure is retried with the SAME idempotency key, a NON_RETRYABLE failure waits for a
// person.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { runTool, type CallProvider, type RunToolOptions } from "../../lib/executor";
import { E2E_BASE_URL, expect, test } from "../fixtures";
import { STARTER_RULE_SETS } from "../../lib/ledger/contracts/starter-rules";
import { api, createFreshKey, createKey, expectJson, putContract, uniqueId, uniqueTool } from "../fixtures/api";

type Behaviour = (req: http.IncomingMessage, res: http.ServerResponse, requestNumber: number) => void;

/** A provider that records every request (its Idempotency-Key) and answers as `behaviour` says. */
class FakeProvider {
  readonly requests: { idempotencyKey: string; body: string; at: number }[] = [];
  /** Effects committed, by idempotency key: what a real provider would have done. */
  readonly effects = new Map<string, number>();
  private readonly server: http.Server;

  constructor(behaviour: Behaviour) {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        const idempotencyKey = String(req.headers["idempotency-key"] ?? "");
        this.requests.push({ idempotencyKey, body, at: Date.now() });
        behaviour(req, res, this.requests.length);
      });
    });
  }

  commit(idempotencyKey: string): void {
    this.effects.set(idempotencyKey, (this.effects.get(idempotencyKey) ?? 0) + 1);
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/charges`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The provider call an agent would write: POST with the operation's idempotency key, map the HTTP answer. */
function callProvider(url: string, args: unknown): CallProvider {
  return async ({ idempotencyKey, signal }) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify(args),
      signal,
    });
    const text = await response.text();
    if (response.ok) return { ok: true, providerId: (JSON.parse(text) as { id: string }).id, value: JSON.parse(text) };
    return { ok: false, error: { httpStatus: response.status, message: text.slice(0, 200) } };
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.describe("runTool against the server and a fake provider", () => {
  let provider: FakeProvider | undefined;
  test.afterEach(async () => {
    await provider?.stop();
    provider = undefined;
  });

  /** An agent-scoped key (what a worker runs with) and a fresh tool name. */
  async function setup() {
    const { key } = await createKey(["agent"]);
    return { key, tool: uniqueTool("exec") };
  }

  function options(key: string, extra: Partial<RunToolOptions> = {}): RunToolOptions {
    const lines: string[] = [];
    return {
      client: { baseUrl: E2E_BASE_URL, apiKey: key, requestTimeoutMs: 10_000 },
      workerId: uniqueId("exec-worker"),
      leaseMs: 30_000,
      providerTimeoutMs: 5_000,
      log: (line) => lines.push(line),
      ...extra,
    };
  }

  test("a provider that commits and never answers: needs_reconcile, UNKNOWN on the server, ONE request", async ({
    request,
  }) => {
    const { key, tool } = await setup();
    await putContract(request, tool, {
      effect: "IDEMPOTENT",
      idempotencyKey: "optional",
      maxAttempts: 5,
      backoff: { baseMs: 10, maxMs: 20 },
    });
    provider = new FakeProvider((req) => {
      // The effect happens, then the answer is lost: the socket is held open and nothing is written.
      provider!.commit(String(req.headers["idempotency-key"]));
    });
    const url = await provider.start();
    const args = { amount: 1200, currency: "EUR", to: "acct_1" };

    const started = Date.now();
    const result = await runTool(tool, args, callProvider(url, args), options(key, { providerTimeoutMs: 500 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);

    expect(result.status).toBe("needs_reconcile");
    expect(result.decision.action).toBe("RECONCILE");
    expect(result.operation).toEqual(expect.objectContaining({ tool, phase: "UNKNOWN", attempt: 1 }));
    const key1 = result.operation.idempotencyKey;

    const detail = expectJson(await api(request).getOp(result.operation.id), 200);
    expect(detail).toEqual(expect.objectContaining({ phase: "UNKNOWN", attempt: 1, idempotencyKey: key1 }));
    expect(detail.attempts).toEqual([expect.objectContaining({ number: 1, result: "unknown", errorKind: "timeout" })]);

    // Nothing is sent again, not even later.
    await sleep(700);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.idempotencyKey).toBe(key1);
    expect(JSON.parse(provider.requests[0]!.body)).toEqual(args);
    expect([...provider.effects]).toEqual([[key1, 1]]);
    expect(expectJson(await api(request).getOp(result.operation.id), 200).attempts).toHaveLength(1);
  });

  test("a provider that answers 503 once, then 200: confirmed after 2 attempts with the SAME key", async ({
    request,
  }) => {
    const { key, tool } = await setup();
    await putContract(request, tool, {
      effect: "IDEMPOTENT",
      idempotencyKey: "required",
      maxAttempts: 3,
      backoff: { baseMs: 20, maxMs: 50 },
    });
    provider = new FakeProvider((req, res, n) => {
      if (n === 1) {
        res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "busy" }));
        return;
      }
      const idem = String(req.headers["idempotency-key"]);
      provider!.commit(idem);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "ch_fake_1", idem }));
    });
    const url = await provider.start();
    const idempotencyKey = uniqueId("agent-key");
    const args = { amount: 500 };

    const result = await runTool(tool, args, callProvider(url, args), options(key, { idempotencyKey }));

    expect(result.status).toBe("confirmed");
    if (result.status !== "confirmed") throw new Error("unreachable");
    expect(result.providerId).toBe("ch_fake_1");
    expect(result.value).toEqual({ id: "ch_fake_1", idem: idempotencyKey });
    expect(result.operation).toEqual(expect.objectContaining({ phase: "CONFIRMED", attempt: 2, idempotencyKey }));

    // At the provider: two requests, one key, one effect.
    expect(provider.requests.map((r) => r.idempotencyKey)).toEqual([idempotencyKey, idempotencyKey]);
    expect([...provider.effects]).toEqual([[idempotencyKey, 1]]);

    const detail = expectJson(await api(request).getOp(result.operation.id), 200);
    expect(detail.phase).toBe("CONFIRMED");
    expect(detail.providerId).toBe("ch_fake_1");
    expect(detail.attempts.map((a) => [a.number, a.result, a.httpStatus])).toEqual([
      [1, "failed", 503],
      [2, "confirmed", null],
    ]);

    // Running it again with the same key answers from the ledger: nothing is sent.
    const again = await runTool(tool, args, callProvider(url, args), options(key, { idempotencyKey }));
    expect(again.status).toBe("confirmed");
    expect(again.operation.id).toBe(result.operation.id);
    expect(provider.requests).toHaveLength(2);
  });

  test("a NON_RETRYABLE tool whose provider fails 503: needs_approval, ONE request", async ({ request }) => {
    const { key, tool } = await setup();
    await putContract(request, tool, {
      effect: "NON_RETRYABLE",
      idempotencyKey: "optional",
      maxAttempts: 3,
      backoff: { baseMs: 10, maxMs: 20 },
    });
    provider = new FakeProvider((_req, res) => {
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "unavailable" }));
    });
    const url = await provider.start();
    const args = { deploy: "v2.3.4" };

    const result = await runTool(tool, args, callProvider(url, args), options(key));

    expect(result.status).toBe("needs_approval");
    expect(result.decision.action).toBe("APPROVAL");
    expect(result.operation).toEqual(expect.objectContaining({ phase: "AWAITING_APPROVAL", attempt: 1 }));
    await sleep(300);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.idempotencyKey).toBe(result.operation.idempotencyKey);

    const detail = expectJson(await api(request).getOp(result.operation.id), 200);
    expect(detail.phase).toBe("AWAITING_APPROVAL");
    expect(detail.attempts).toEqual([expect.objectContaining({ number: 1, result: "failed", httpStatus: 503 })]);
    expect(detail.audit.map((e) => e.action)).toContain("operation.approval_requested");
  });

  test("Stripe's documented 409 in progress then 200, and 402 declined, under the Stripe starter rules", async ({
    request,
  }) => {
    const { key, tool } = await setup();
    const stripe = STARTER_RULE_SETS.find((set) => set.id === "stripe")!.rules;
    await putContract(request, tool, {
      effect: "IDEMPOTENT",
      idempotencyKey: "required",
      maxAttempts: 3,
      backoff: { baseMs: 20, maxMs: 50 },
      errorRules: stripe,
    });
    // Stripe's bodies (docs.stripe.com/error-codes): a concurrent request with the same key, and a declined card.
    const inProgress = {
      error: {
        code: "idempotency_key_in_use",
        message:
          "There is currently another in-progress request using this Idempotent Key (that probably means you " +
          "submitted twice, and the other request is still going through). Please try again later.",
        type: "invalid_request_error",
      },
    };
    const declined = {
      error: {
        code: "card_declined",
        decline_code: "generic_decline",
        message: "Your card was declined.",
        type: "card_error",
      },
    };
    provider = new FakeProvider((req, res, n) => {
      if (n === 1) return void res.writeHead(409).end(JSON.stringify(inProgress));
      if (n === 3) return void res.writeHead(402).end(JSON.stringify(declined));
      const idem = String(req.headers["idempotency-key"]);
      provider!.commit(idem);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "ch_fake_2", idem }));
    });
    const url = await provider.start();

    const charged = await runTool(
      tool,
      { amount: 700 },
      callProvider(url, { amount: 700 }),
      options(key, { idempotencyKey: uniqueId("stripe-charge") }),
    );
    expect(charged.status).toBe("confirmed");
    const first = charged.operation.idempotencyKey;
    expect(provider.requests.map((r) => r.idempotencyKey)).toEqual([first, first]);
    const detail = expectJson(await api(request).getOp(charged.operation.id), 200);
    expect(detail.audit.find((e) => e.action === "operation.retry_scheduled")?.reason).toContain(
      `rule 1 of ${tool}: 409 idempotency_key_in_use means the first request with this key is still in progress`,
    );

    const card = await runTool(
      tool,
      { amount: 900 },
      callProvider(url, { amount: 900 }),
      options(key, { idempotencyKey: uniqueId("stripe-declined") }),
    );
    expect(card.status).toBe("failed");
    expect(card.decision.reason).toContain(`rule 2 of ${tool}: 402 means the request was valid but failed`);
    await sleep(200);
    expect(provider.requests).toHaveLength(3);
  });

  test("a run's allowance: only its own key reads or declares it, and 3 retries stop the run at 3 across its operations", async ({
    request,
  }) => {
    const { key, tool } = await setup();
    const runId = uniqueId("run");
    const path = `/api/v1/runs/${runId}`;
    const as = (k: string | null, extra: Record<string, string> = {}) => ({
      headers: { ...(k ? { authorization: `Bearer ${k}` } : {}), ...extra },
    });

    // Authorization first: nobody but the run's own key gets an answer, and nothing is written.
    const declared = await request.put(path, { ...as(key), data: { maxRetries: 3 } });
    expect(declared.status()).toBe(201);
    const other = await createFreshKey(["agent"]);
    expect((await request.get(path, as(other.key))).status()).toBe(404);
    expect((await request.put(path, { ...as(other.key), data: { maxRetries: 100 } })).status()).toBe(404);
    const operator = await createKey(["operator"]);
    expect((await request.put(path, { ...as(operator.key), data: { maxRetries: 100 } })).status()).toBe(403);
    const foreign = { origin: "https://attacker.example", referer: "https://attacker.example/page" };
    expect((await request.put(path, { ...as(null, foreign), data: { maxRetries: 100 } })).status()).toBe(401);
    expect(await (await request.get(path, as(key))).json()).toMatchObject({ maxRetries: 3, used: { retries: 0 } });

    await putContract(request, tool, {
      effect: "IDEMPOTENT",
      idempotencyKey: "optional",
      maxAttempts: 10,
      backoff: { baseMs: 10, maxMs: 20 },
    });
    provider = new FakeProvider((_req, res) => {
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "outage" }));
    });
    const url = await provider.start();
    const results = [];
    for (const n of [1, 2, 3]) {
      const args = { n };
      const extra = { runId, ...(n === 1 ? { runAllowance: { maxRetries: 3 } } : {}) };
      results.push(await runTool(tool, args, callProvider(url, args), options(key, extra)));
    }
    // Three first attempts and three retries in all; every operation ends failed, saying why.
    expect(provider.requests).toHaveLength(6);
    for (const result of results) {
      expect(result.status).toBe("failed");
      expect(result.decision.reason).toContain(`the run ${runId} has used its allowance of 3 retries`);
    }
    const allowance = (await (await request.get(path, as(key))).json()) as { exhaustedAt: string | null };
    expect(allowance).toMatchObject({ maxRetries: 3, used: { retries: 3 }, remaining: { retries: 0 } });
    expect(allowance.exhaustedAt).not.toBeNull();
  });
});
