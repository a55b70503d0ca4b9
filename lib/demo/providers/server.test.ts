// The demo providers over real HTTP: idempotency, lookups, every injected fault, and the effect log a test counts
// duplicates with.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FaultPlan } from "./faults";
import { startProviderServer, type ProviderServer, type ProviderServerOptions } from "./server";

const AUTH = "Bearer sk_demo_test_secret_0123456789";
const DAY_MS = 24 * 60 * 60 * 1000;

let server: ProviderServer | undefined;
let clock = Date.parse("2026-11-30T12:00:00Z");

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: ProviderServerOptions = {}): Promise<ProviderServer> {
  clock = Date.parse("2026-11-30T12:00:00Z");
  server = await startProviderServer({ paymentsAuthorization: AUTH, now: () => clock, random: () => 0.5, ...options });
  return server;
}

function url(path: string): string {
  if (!server) throw new Error("no server");
  return `${server.url}${path}`;
}

async function charge(
  key: string,
  body: Record<string, unknown> = { customer: "cus_ada", amountCents: 1200, currency: "EUR" },
  extra: RequestInit = {},
) {
  const response = await fetch(url("/payments/v1/charges"), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: AUTH,
      "idempotency-key": key,
      "x-opledger-operation-id": `op-${key}`,
      "x-opledger-attempt": "1",
    },
    body: JSON.stringify(body),
    ...extra,
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

async function getJson(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(url(path), { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function fault(rule: Record<string, unknown>): Promise<number> {
  return (
    await fetch(url("/_faults"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(rule),
    })
  ).status;
}

function effects(): {
  provider: string;
  kind: string;
  id: string;
  idempotencyKey: string | null;
  operationId: string | null;
  attempt: number | null;
}[] {
  return server?.store.effects ?? [];
}

describe("payments API", () => {
  it("answers the same key with the first result, applying the charge once", async () => {
    await start();
    const first = await charge("k1");
    const second = await charge("k1");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: "charge",
      status: "succeeded",
      amountCents: 1200,
      idempotencyKey: "k1",
    });
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(effects()).toEqual([
      expect.objectContaining({
        provider: "payments",
        kind: "charge",
        id: first.body.id,
        idempotencyKey: "k1",
        operationId: "op-k1",
        attempt: 1,
      }),
    ]);
    expect((await charge("k1", { customer: "cus_ada", amountCents: 9999, currency: "EUR" })).status).toBe(422);
    expect(effects()).toHaveLength(1);
  });

  it("requires the key and the Authorization header", async () => {
    await start();
    const noKey = await fetch(url("/payments/v1/charges"), {
      method: "POST",
      headers: { authorization: AUTH },
      body: "{}",
    });
    expect(noKey.status).toBe(400);
    const noAuth = await fetch(url("/payments/v1/charges"), {
      method: "POST",
      headers: { "idempotency-key": "k" },
      body: "{}",
    });
    expect(noAuth.status).toBe(401);
    expect((await getJson("/payments/v1/charges/by-key/k")).status).toBe(401);
    expect(effects()).toHaveLength(0);
  });

  it("finds a charge by its key, and says 404 for a key that charged nothing", async () => {
    await start();
    const { body } = await charge("key/with spaces");
    const found = await getJson(`/payments/v1/charges/by-key/${encodeURIComponent("key/with spaces")}`, {
      authorization: AUTH,
    });
    expect(found).toMatchObject({
      status: 200,
      body: { id: body.id, status: "succeeded", idempotencyKey: "key/with spaces" },
    });
    expect((await getJson("/payments/v1/charges/by-key/nope", { authorization: AUTH })).status).toBe(404);
  });

  it("forgets a key after 24 hours (a new charge), but a lookup still finds the old charge", async () => {
    await start();
    const first = await charge("k-old");
    clock += DAY_MS + 1;
    const second = await charge("k-old");
    expect(second.body.id).not.toBe(first.body.id);
    expect(effects()).toHaveLength(2);
    expect((await getJson("/payments/v1/charges/by-key/k-old", { authorization: AUTH })).body.id).toBe(second.body.id);
  });

  it("refunds honour keys too and are found by key", async () => {
    await start();
    const send = () =>
      fetch(url("/payments/v1/refunds"), {
        method: "POST",
        headers: { authorization: AUTH, "idempotency-key": "r1", "content-type": "application/json" },
        body: JSON.stringify({ charge: "ch_1", amountCents: 300 }),
      });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect(effects().map((e) => e.kind)).toEqual(["refund"]);
    expect((await getJson("/payments/v1/refunds/by-key/r1", { authorization: AUTH })).status).toBe(200);
  });
});

describe("faults", () => {
  it("timeout after commit: the charge exists, the answer never comes, and the lookup finds it", async () => {
    await start();
    expect(await fault({ tool: "payments", fault: "timeout_after_commit", count: 1 })).toBe(201);
    await expect(charge("k-hang", undefined, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(effects()).toHaveLength(1);
    expect((await getJson("/payments/v1/charges/by-key/k-hang", { authorization: AUTH })).status).toBe(200);
    // The retry with the same key converges on the same charge.
    expect((await charge("k-hang")).body.id).toBe(effects()[0]?.id);
    expect(effects()).toHaveLength(1);
  });

  it("reset before commit: the connection dies and nothing was applied", async () => {
    await start();
    await fault({ tool: "payments", fault: "reset_before_commit", count: 1 });
    await expect(charge("k-reset")).rejects.toThrow();
    expect(effects()).toHaveLength(0);
    expect((await getJson("/payments/v1/charges/by-key/k-reset", { authorization: AUTH })).status).toBe(404);
  });

  it("429 with Retry-After, 500 and the provider's own 4xx apply nothing", async () => {
    await start();
    await fault({ tool: "payments", fault: "rate_limited", count: 1 });
    const limited = await charge("k-429");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    await fault({ tool: "payments", fault: "server_error", count: 1 });
    expect((await charge("k-500")).status).toBe(500);
    await fault({ tool: "payments", fault: "client_error", count: 1 });
    const declined = await charge("k-402");
    expect(declined).toMatchObject({ status: 402, body: { error: { code: "card_declined" } } });
    expect(effects()).toHaveLength(0);
    // A decline is stored under its key like Stripe does; the other two left the key free.
    expect((await charge("k-402")).status).toBe(402);
    expect((await charge("k-429")).status).toBe(200);
    expect(effects()).toHaveLength(1);
  });

  it("an outage answers 503 to everything of that provider, lookups too, until it ends", async () => {
    await start();
    await charge("k-before");
    await fault({ tool: "payments", fault: "outage", durationMs: 60_000 });
    expect(server?.faults.inOutage("payments")).toBe(true);
    expect((await charge("k-during")).status).toBe(503);
    expect((await getJson("/payments/v1/charges/by-key/k-before", { authorization: AUTH })).status).toBe(503);
    const email = await fetch(url("/email/v1/messages"), {
      method: "POST",
      body: JSON.stringify({ to: "a@example.com", template: "receipt" }),
    });
    expect(email.status).toBe(202);
    clock += 60_001;
    expect((await getJson("/payments/v1/charges/by-key/k-before", { authorization: AUTH })).status).toBe(200);
    expect((await charge("k-during")).status).toBe(200);
  });

  it("a default rate spreads random faults over effects, never over lookups", () => {
    let draws = 0;
    const sequence = [0.01, 0.99, 0.2, 0.5];
    const plan = new FaultPlan(
      0.1,
      () => sequence[draws++ % sequence.length] ?? 0,
      () => 0,
    );
    expect(plan.pick("payments", "lookup")).toBeNull();
    expect(draws).toBe(0);
    expect(plan.pick("payments", "effect")).not.toBeNull();
    const none = new FaultPlan(0, Math.random, () => 0);
    for (let i = 0; i < 100; i++) expect(none.pick("email", "effect")).toBeNull();
  });

  it("validates fault rules, spends counted ones, and clears on DELETE", async () => {
    await start();
    expect(await fault({ tool: "payments", fault: "meteor" })).toBe(400);
    expect(await fault({ tool: "*", fault: "server_error", count: 2 })).toBe(201);
    expect((await charge("a")).status).toBe(500);
    const email = await fetch(url("/email/v1/messages"), {
      method: "POST",
      body: JSON.stringify({ to: "a@example.com", template: "receipt" }),
    });
    expect(email.status).toBe(500);
    expect((await charge("a")).status).toBe(200);
    await fault({ tool: "payments", fault: "server_error" });
    expect((await fetch(url("/_faults"), { method: "DELETE" })).status).toBe(200);
    expect((await charge("b")).status).toBe(200);
    expect(await fault({ defaultRate: 0.25 })).toBe(200);
    expect((await getJson("/_faults")).body).toMatchObject({ defaultRate: 0.25, rules: [] });
  });
});

describe("email, deploy and search", () => {
  it("email has no keys: every accepted request is one more email, recorded with its operation and attempt", async () => {
    await start();
    const send = (attempt: number) =>
      fetch(url("/email/v1/messages"), {
        method: "POST",
        headers: { "x-opledger-operation-id": "op-mail", "x-opledger-attempt": String(attempt) },
        body: JSON.stringify({ to: "grace@example.com", template: "receipt" }),
      });
    expect((await send(1)).status).toBe(202);
    expect((await send(2)).status).toBe(202);
    const log = await getJson("/_effects?provider=email&operationId=op-mail");
    expect(log.body.count).toBe(2);
    expect(effects().map((e) => e.attempt)).toEqual([1, 2]);
  });

  it("deploy: a repeat with the same token rolls out again, and the lookup finds the newest rollout by token", async () => {
    await start({ rolloutMs: 1000 });
    const deploy = () =>
      fetch(url("/deploy/v1/deployments"), {
        method: "POST",
        body: JSON.stringify({ service: "checkout", version: "1.2.3", clientToken: "tok-1" }),
      });
    const first = (await (await deploy()).json()) as { id: string };
    expect((await getJson("/deploy/v1/deployments?clientToken=tok-1")).body).toMatchObject({
      id: first.id,
      status: "rolling_out",
    });
    clock += 1000;
    expect((await getJson("/deploy/v1/deployments?clientToken=tok-1")).body).toMatchObject({ status: "live" });
    const second = (await (await deploy()).json()) as { id: string };
    expect(effects().filter((e) => e.kind === "deployment")).toHaveLength(2);
    expect((await getJson("/deploy/v1/deployments?clientToken=tok-1")).body.id).toBe(second.id);
    expect((await getJson("/deploy/v1/deployments?clientToken=tok-none")).status).toBe(404);
  });

  it("search is a read: answered, never recorded as an effect", async () => {
    await start();
    const found = await getJson("/search/v1/search?q=refund");
    expect(found.status).toBe(200);
    expect(Array.isArray(found.body.results)).toBe(true);
    expect(effects()).toHaveLength(0);
  });
});

describe("state file", () => {
  it("keeps effects and keys across a restart, so a lookup after a restart still finds the charge", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opl-providers-"));
    const stateFile = path.join(dir, "state.jsonl");
    try {
      await start({ stateFile });
      const first = await charge("k-persist");
      await server?.close();
      server = await startProviderServer({ paymentsAuthorization: AUTH, stateFile, now: () => clock });
      expect((await getJson("/payments/v1/charges/by-key/k-persist", { authorization: AUTH })).body.id).toBe(
        first.body.id,
      );
      expect((await charge("k-persist")).body.id).toBe(first.body.id);
      expect(effects()).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
