// Protocol tests of runTool's state machine against a tiny fake of the ledger HTTP API (node:http on 127.0.0.1).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiProblem } from "./client";
import { runTool, type CallProvider, type RunToolOptions } from "./run-tool";

const API_KEY = "test-key-0123456789abcdef0123456789";
const OP_ID = "op_01";
const KEY = "key-abc";

interface Seen {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

interface Answer {
  status: number;
  body: unknown;
}

type Handler = (body: Record<string, unknown>, fake: FakeLedger) => Answer | undefined;

/** The fake's idea of the one operation; real fields, simple rules. */
interface FakeOperation {
  id: string;
  tool: string;
  effect: string;
  idempotencyKey: string;
  phase: string;
  attempt: number;
  evidence: string;
  providerId: string | null;
  rejectionReason: string | null;
  fence: number;
  decision: { action: string; reason: string; retryAfterMs?: number };
}

const problem = (status: number, code: string, decision?: FakeOperation["decision"]): Answer => ({
  status,
  body: { type: `https://opledger.dev/problems/${code}`, title: code, status, detail: `fake: ${code}`, code, decision },
});

/**
 * Default behaviour: plan creates, claim grants fence 1, dispatch runs, confirmed -> CONFIRMED/STOP,
 * failed -> RETRY_SCHEDULED/RETRY_SAME_KEY after 1200 ms, unknown -> UNKNOWN/RECONCILE.
 * Each route can be overridden per call with a queue of handlers (undefined falls back to the default).
 */
class FakeLedger {
  readonly seen: Seen[] = [];
  readonly overrides = new Map<string, Handler[]>();
  op: FakeOperation = {
    id: OP_ID,
    tool: "email.send",
    effect: "IDEMPOTENT",
    idempotencyKey: KEY,
    phase: "PLANNED",
    attempt: 0,
    evidence: "none",
    providerId: null,
    rejectionReason: null,
    fence: 0,
    decision: { action: "DISPATCH", reason: "Planned; may be dispatched now." },
  };
  private server: Server | undefined;
  url = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const address = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Queue handlers for a route such as "dispatch" or "heartbeat"; one is used per request. */
  on(route: string, ...handlers: Handler[]): this {
    this.overrides.set(route, handlers);
    return this;
  }

  calls(route: string): Seen[] {
    return this.seen.filter((s) => routeOf(s.method, s.path) === route);
  }

  routes(): string[] {
    return this.seen.map((s) => routeOf(s.method, s.path)).filter((r) => r !== "heartbeat");
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = "";
    for await (const chunk of req) raw += String(chunk);
    const path = req.url ?? "";
    const method = req.method ?? "GET";
    const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
    this.seen.push({ method, path, body });
    const route = routeOf(method, path);
    const answer =
      req.headers.authorization !== `Bearer ${API_KEY}`
        ? problem(401, "unauthorized")
        : (this.overrides.get(route)?.shift()?.(body, this) ?? this.standard(route, body));
    const isProblem = answer.status >= 400;
    res.writeHead(answer.status, { "content-type": isProblem ? "application/problem+json" : "application/json" });
    res.end(JSON.stringify(answer.body));
  }

  standard(route: string, body: Record<string, unknown>): Answer {
    const op = this.op;
    switch (route) {
      case "plan":
        return { status: 201, body: op };
      case "claim":
        op.fence += 1;
        return { status: 200, body: { fence: op.fence, leaseExpiresAt: new Date().toISOString(), operation: op } };
      case "heartbeat":
        return { status: 200, body: { fence: op.fence, leaseExpiresAt: new Date().toISOString(), operation: op } };
      case "dispatch":
        op.attempt += 1;
        op.phase = "DISPATCHED";
        op.decision = { action: "WAIT", reason: "In flight." };
        return { status: 200, body: op };
      case "outcome":
        if (body.result === "confirmed") {
          op.phase = "CONFIRMED";
          op.providerId = typeof body.providerId === "string" ? body.providerId : null;
          op.decision = { action: "STOP", reason: "Confirmed by the provider." };
        } else if (body.result === "failed") {
          op.phase = "RETRY_SCHEDULED";
          op.decision = {
            action: "RETRY_SAME_KEY",
            reason: "Transient 503; retry with the same key.",
            retryAfterMs: 1200,
          };
        } else {
          op.phase = "UNKNOWN";
          op.decision = { action: "RECONCILE", reason: "The outcome is unknown; reconcile before any retry." };
        }
        return { status: 200, body: op };
      case "get":
        return { status: 200, body: { ...op, attempts: [], audit: [] } };
      default:
        return problem(404, "not_found");
    }
  }
}

function routeOf(method: string, path: string): string {
  if (method === "POST" && path === "/api/v1/operations") return "plan";
  const action = /^\/api\/v1\/operations\/[^/]+\/(\w+)$/.exec(path)?.[1];
  if (method === "POST" && action) return action;
  if (method === "GET" && /^\/api\/v1\/operations\/[^/]+$/.test(path)) return "get";
  return `${method} ${path}`;
}

let fake: FakeLedger;
let sleeps: number[];
let lines: string[];

afterEach(async () => {
  await fake.close();
});

async function setup(): Promise<FakeLedger> {
  fake = await new FakeLedger().start();
  sleeps = [];
  lines = [];
  return fake;
}

function options(extra: Partial<RunToolOptions> = {}): RunToolOptions {
  return {
    client: { baseUrl: fake.url, apiKey: API_KEY },
    workerId: "worker-test",
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    log: (line) => lines.push(line),
    ...extra,
  };
}

/** A provider that never answers on its own: it settles only when its signal aborts. */
function hangingProvider(aborted: { value: boolean }): CallProvider {
  return ({ signal }) =>
    new Promise((_, reject) => {
      signal.addEventListener("abort", () => {
        aborted.value = true;
        reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      });
    });
}

describe("runTool", () => {
  it("plans, claims, dispatches, calls with the operation's key and reports a confirmation", async () => {
    await setup();
    const contexts: { idempotencyKey: string; attempt: number; operationId: string }[] = [];
    const result = await runTool(
      "email.send",
      { to: "a@example.com" },
      ({ idempotencyKey, attempt, operationId }) => {
        contexts.push({ idempotencyKey, attempt, operationId });
        return Promise.resolve({ ok: true, providerId: "msg_1", value: { queued: true } });
      },
      options({ idempotencyKey: KEY, runId: "run-1", agentId: "agent-1" }),
    );

    expect(result).toMatchObject({
      status: "confirmed",
      providerId: "msg_1",
      value: { queued: true },
      operation: { id: OP_ID, phase: "CONFIRMED", attempt: 1 },
      decision: { action: "STOP" },
    });
    expect(contexts).toEqual([{ idempotencyKey: KEY, attempt: 1, operationId: OP_ID }]);
    expect(fake.routes()).toEqual(["plan", "claim", "dispatch", "outcome"]);
    expect(fake.calls("plan")[0]?.body).toEqual({
      tool: "email.send",
      args: { to: "a@example.com" },
      idempotencyKey: KEY,
      runId: "run-1",
      agentId: "agent-1",
    });
    expect(fake.calls("claim")[0]?.body).toEqual({ workerId: "worker-test", leaseMs: 30000 });
    expect(fake.calls("dispatch")[0]?.body).toEqual({ fence: 1 });
    expect(fake.calls("outcome")[0]?.body).toEqual({ fence: 1, result: "confirmed", providerId: "msg_1" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("email.send attempt 1: confirmed");
  });

  it("reports a 503 as failed, sleeps the server's retryAfterMs and retries with the same key", async () => {
    await setup();
    const keys: string[] = [];
    let calls = 0;
    const result = await runTool(
      "email.send",
      {},
      ({ idempotencyKey }) => {
        keys.push(idempotencyKey);
        calls += 1;
        return Promise.resolve(
          calls === 1
            ? { ok: false, error: { kind: "server_error", httpStatus: 503, message: "Service Unavailable" } }
            : { ok: true, providerId: "msg_2" },
        );
      },
      options(),
    );

    expect(result.status).toBe("confirmed");
    expect(result.operation.attempt).toBe(2);
    expect(keys).toEqual([KEY, KEY]);
    expect(sleeps).toEqual([1200]);
    expect(fake.calls("outcome").map((c) => c.body)).toEqual([
      {
        fence: 1,
        result: "failed",
        error: { kind: "server_error", httpStatus: 503, message: "Service Unavailable" },
      },
      { fence: 1, result: "confirmed", providerId: "msg_2" },
    ]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /attempt 1: failed \(server_error, HTTP 503\); backoff waited 0 ms; gate: RETRY_SAME_KEY in 1200 ms/,
    );
    expect(lines[1]).toMatch(/attempt 2: confirmed; backoff waited 1200 ms/);
  });

  it("calls onStep at each boundary once the ledger holds it, and a throw there ends the run on the spot", async () => {
    await setup();
    const seen: string[] = [];
    let providerCalls = 0;
    const provider: CallProvider = () => {
      providerCalls += 1;
      return Promise.resolve(
        providerCalls === 1
          ? { ok: false, error: { kind: "server_error", httpStatus: 503 } }
          : { ok: true, providerId: "msg_3" },
      );
    };
    const result = await runTool(
      "email.send",
      {},
      provider,
      options({
        onStep: ({ step, operation, fence }) => {
          seen.push(
            `${step} ${operation.phase} a${operation.attempt} f${fence} [${fake.routes().join(",")}] p${providerCalls}`,
          );
        },
      }),
    );
    expect(result.status).toBe("confirmed");
    expect(seen).toEqual([
      "planned PLANNED a0 fnull [plan] p0",
      "claimed PLANNED a0 f1 [plan,claim] p0",
      "dispatched DISPATCHED a1 f1 [plan,claim,dispatch] p0",
      "reported RETRY_SCHEDULED a1 f1 [plan,claim,dispatch,outcome] p1",
      "dispatched DISPATCHED a2 f1 [plan,claim,dispatch,outcome,dispatch] p1",
      "reported CONFIRMED a2 f1 [plan,claim,dispatch,outcome,dispatch,outcome] p2",
    ]);

    await fake.close();
    await setup();
    providerCalls = 0;
    const crash = new Error("stopped at dispatched");
    const stopped = runTool(
      "email.send",
      {},
      provider,
      options({
        onStep: ({ step }) => {
          if (step === "dispatched") throw crash;
        },
      }),
    );
    await expect(stopped).rejects.toBe(crash);
    expect(providerCalls).toBe(0);
    expect(fake.routes()).toEqual(["plan", "claim", "dispatch"]);
  });

  it("reports a provider timeout as unknown, never failed, and aborts the provider's signal", async () => {
    await setup();
    const aborted = { value: false };
    const result = await runTool("email.send", {}, hangingProvider(aborted), options({ providerTimeoutMs: 30 }));

    expect(aborted.value).toBe(true);
    const reported = fake.calls("outcome").map((c) => c.body);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ result: "unknown", error: { kind: "timeout" } });
    expect(reported.some((b) => b.result === "failed")).toBe(false);
    expect(result).toMatchObject({
      status: "needs_reconcile",
      operation: { phase: "UNKNOWN" },
      decision: { action: "RECONCILE" },
    });
  });

  it("reports a provider that ignores its signal as unknown once the timeout passes", async () => {
    await setup();
    const result = await runTool(
      "email.send",
      {},
      () => new Promise(() => undefined),
      options({ providerTimeoutMs: 20 }),
    );
    expect(fake.calls("outcome")[0]?.body).toMatchObject({ result: "unknown", error: { kind: "timeout" } });
    expect(result.status).toBe("needs_reconcile");
  });

  it("reports a throwing provider as unknown with the error's code", async () => {
    await setup();
    const result = await runTool(
      "email.send",
      {},
      () => Promise.reject(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })),
      options(),
    );

    expect(fake.calls("outcome").map((c) => c.body)).toEqual([
      { fence: 1, result: "unknown", error: { kind: "connection_reset", message: "socket hang up" } },
    ]);
    expect(result.status).toBe("needs_reconcile");
  });

  it("passes an unrecognised thrown code or name through as the error kind", async () => {
    await setup();
    class ProviderSdkError extends Error {
      override name = "ProviderSdkError";
    }
    await runTool("email.send", {}, () => Promise.reject(new ProviderSdkError("boom")), options());
    expect(fake.calls("outcome")[0]?.body).toMatchObject({ result: "unknown", error: { kind: "ProviderSdkError" } });
  });

  it("reports a call cut short by the caller's abort as unknown and does not retry", async () => {
    await setup();
    const controller = new AbortController();
    const aborted = { value: false };
    const provider = hangingProvider(aborted);
    const result = await runTool(
      "email.send",
      {},
      (ctx) => {
        setTimeout(() => controller.abort(new Error("agent shutting down")), 5);
        return provider(ctx);
      },
      options({ signal: controller.signal, providerTimeoutMs: 5000 }),
    );
    expect(aborted.value).toBe(true);
    expect(fake.calls("outcome").map((c) => c.body)).toEqual([
      { fence: 1, result: "unknown", error: { kind: "aborted", message: "the caller aborted the run mid-call" } },
    ]);
    expect(result.status).toBe("needs_reconcile");
  });

  it("hands over to a person when dispatch answers 409 approval_required, without calling the provider", async () => {
    await setup();
    const approval = { action: "APPROVAL", reason: "send_refund is NON_RETRYABLE: a person must approve attempt 1." };
    fake.on("dispatch", (_, f) => {
      f.op.phase = "AWAITING_APPROVAL";
      f.op.decision = approval;
      return problem(409, "approval_required", approval);
    });
    let called = false;
    const result = await runTool(
      "email.send",
      {},
      () => {
        called = true;
        return Promise.resolve({ ok: true });
      },
      options(),
    );

    expect(called).toBe(false);
    expect(result).toMatchObject({
      status: "needs_approval",
      operation: { id: OP_ID, phase: "AWAITING_APPROVAL" },
      decision: approval,
    });
    expect(fake.calls("outcome")).toHaveLength(0);
  });

  it("aborts the provider call and stops when a heartbeat answers stale_fence", async () => {
    await setup();
    fake.on("heartbeat", () => problem(409, "stale_fence"));
    const aborted = { value: false };
    const result = await runTool(
      "email.send",
      {},
      hangingProvider(aborted),
      options({ heartbeatEveryMs: 10, providerTimeoutMs: 5000 }),
    );

    expect(aborted.value).toBe(true);
    expect(result).toMatchObject({ status: "lease_lost", code: "stale_fence", operation: { id: OP_ID } });
    expect(fake.calls("heartbeat")[0]?.body).toEqual({ fence: 1, leaseMs: 30000 });
    // A worker whose lease was taken over must not write: no outcome report.
    expect(fake.calls("outcome")).toHaveLength(0);
  });

  it("sleeps the decision's retryAfterMs after a 409 retry_not_due and then dispatches", async () => {
    await setup();
    fake.on("dispatch", () =>
      problem(409, "retry_not_due", {
        action: "RETRY_SAME_KEY",
        reason: "Backoff: next attempt in 500 ms.",
        retryAfterMs: 500,
      }),
    );
    const result = await runTool("email.send", {}, () => Promise.resolve({ ok: true, providerId: "msg_3" }), options());

    expect(sleeps).toEqual([500]);
    expect(fake.routes()).toEqual(["plan", "claim", "dispatch", "dispatch", "outcome"]);
    expect(result).toMatchObject({ status: "confirmed", providerId: "msg_3" });
    expect(lines[0]).toContain("backoff waited 500 ms");
  });

  it("returns waiting instead of sleeping longer than maxWaitMs", async () => {
    await setup();
    fake.on("outcome", (_, f) => {
      f.op.phase = "RETRY_SCHEDULED";
      f.op.decision = { action: "RETRY", reason: "Rate limited; retry in 2 minutes.", retryAfterMs: 120_000 };
      return { status: 200, body: f.op };
    });
    const result = await runTool(
      "email.send",
      {},
      () => Promise.resolve({ ok: false, error: { kind: "rate_limited", httpStatus: 429, retryAfterMs: 120_000 } }),
      options({ maxWaitMs: 60_000 }),
    );

    expect(sleeps).toEqual([]);
    expect(result).toMatchObject({ status: "waiting", retryAfterMs: 120_000, decision: { action: "RETRY" } });
    expect(fake.calls("outcome")[0]?.body).toMatchObject({
      result: "failed",
      error: { kind: "rate_limited", httpStatus: 429, retryAfterMs: 120_000 },
    });
  });

  it("returns unavailable when the breaker stays open longer than maxWaitMs", async () => {
    await setup();
    const open = { action: "UNAVAILABLE", reason: "smtp breaker is open.", retryAfterMs: 90_000 };
    fake.on("dispatch", () => problem(409, "breaker_open", open));
    const result = await runTool("email.send", {}, () => Promise.resolve({ ok: true }), options());
    expect(result).toMatchObject({ status: "unavailable", decision: open });
  });

  it("tells the caller a rejection's reason", async () => {
    await setup();
    fake.on("dispatch", (_, f) => {
      f.op.phase = "REJECTED";
      f.op.rejectionReason = "Customer already refunded by phone.";
      f.op.decision = { action: "STOP", reason: "Rejected by ops@example.com." };
      return problem(409, "already_finished", f.op.decision);
    });
    const result = await runTool("email.send", {}, () => Promise.resolve({ ok: true }), options());
    expect(result).toMatchObject({ status: "rejected", reason: "Customer already refunded by phone." });
  });

  it("answers a re-run of a confirmed operation from the ledger without sending again", async () => {
    await setup();
    fake.on("plan", (_, f) => ({
      status: 200,
      body: {
        ...f.op,
        phase: "CONFIRMED",
        attempt: 1,
        providerId: "msg_9",
        decision: { action: "STOP", reason: "Confirmed." },
      },
    }));
    let called = false;
    const result = await runTool(
      "email.send",
      {},
      () => {
        called = true;
        return Promise.resolve({ ok: true });
      },
      options({ idempotencyKey: KEY }),
    );
    expect(called).toBe(false);
    expect(fake.routes()).toEqual(["plan"]);
    expect(result).toMatchObject({ status: "confirmed", providerId: "msg_9" });
  });

  it("returns lease_lost when another worker holds the lease", async () => {
    await setup();
    fake.on("claim", () => problem(409, "lease_held"));
    const result = await runTool("email.send", {}, () => Promise.resolve({ ok: true }), options());
    expect(result).toMatchObject({ status: "lease_lost", code: "lease_held" });
    expect(fake.calls("dispatch")).toHaveLength(0);
  });

  it("re-sends an outcome report that hit a server error", async () => {
    await setup();
    fake.on("outcome", () => problem(503, "unavailable"));
    const result = await runTool("email.send", {}, () => Promise.resolve({ ok: true, providerId: "m" }), options());
    expect(fake.calls("outcome")).toHaveLength(2);
    expect(sleeps).toEqual([250]);
    expect(result.status).toBe("confirmed");
  });

  it("throws a typed ApiProblem for a tool without a contract", async () => {
    await setup();
    fake.on("plan", () => problem(422, "no_contract"));
    const error: unknown = await runTool("nope", {}, () => Promise.resolve({ ok: true }), options()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiProblem);
    expect(error).toMatchObject({ status: 422, code: "no_contract", detail: "fake: no_contract" });
  });

  it("sends the API key and gets a 401 problem without it", async () => {
    await setup();
    const error: unknown = await runTool(
      "email.send",
      {},
      () => Promise.resolve({ ok: true }),
      options({ client: { baseUrl: fake.url, apiKey: "wrong" } }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
  });
});
