// The provider lookup against a real local HTTP server: URL filling, auth from the environment, verdicts, timeouts and
// failures.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  evidenceText,
  lookupEffect,
  lookupUrl,
  reconcileSuggestion,
  type LookupEvidence,
  type ReconcileSettings,
} from "./provider-lookup";

const NOW = new Date("2026-11-30T12:00:00.000Z");
const SECRET_ENV = "OPL_TEST_LOOKUP_AUTH";
const SECRET = "Bearer sk_test_lookup_secret_42";

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

type Answer = (res: ServerResponse) => void;

let server: Server;
let base: string;
let seen: Seen[];
let answer: Answer;

const json =
  (status: number, body: unknown): Answer =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

beforeEach(async () => {
  seen = [];
  answer = json(200, {});
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  delete process.env[SECRET_ENV];
});

afterEach(async () => {
  delete process.env[SECRET_ENV];
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function settings(overrides: Partial<ReconcileSettings> = {}): ReconcileSettings {
  return {
    method: "lookup",
    urlTemplate: `${base}/charges/by-key/{idempotencyKey}`,
    timeoutMs: 1000,
    providerIdField: "id",
    statusField: "status",
    appliedValues: ["succeeded"],
    ...overrides,
  };
}

const op = { idempotencyKey: "key/1 ?&", providerId: null };

function ok(evidence: LookupEvidence) {
  if (!evidence.ok) throw new Error(`expected evidence, got: ${evidence.reason}`);
  return evidence;
}

function failed(evidence: LookupEvidence) {
  if (evidence.ok) throw new Error("expected a failed lookup");
  return evidence;
}

describe("lookupEffect", () => {
  it("fills the template with the encoded key and sends the Authorization header from the named variable", async () => {
    process.env[SECRET_ENV] = SECRET;
    answer = json(200, { id: "ch_1", status: "succeeded" });
    const evidence = ok(await lookupEffect(settings({ authHeaderEnv: SECRET_ENV }), op, fetch, NOW));
    expect(seen[0]?.url).toBe(`/charges/by-key/${encodeURIComponent("key/1 ?&")}`);
    expect(seen[0]?.headers.authorization).toBe(SECRET);
    expect(evidence).toMatchObject({
      status: 200,
      providerId: "ch_1",
      applied: true,
      lookedUpAt: NOW.toISOString(),
      truncated: false,
    });
    expect(JSON.stringify(evidence)).not.toContain("sk_test_lookup_secret_42");
  });

  it("sends no Authorization header when the variable is not set", async () => {
    await lookupEffect(settings({ authHeaderEnv: SECRET_ENV }), op, fetch, NOW);
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it("fills {providerId}, and refuses without a request when the operation has none", async () => {
    const byId = settings({ urlTemplate: `${base}/deployments/{providerId}?token={idempotencyKey}` });
    failed(await lookupEffect(byId, op, fetch, NOW));
    expect(seen).toHaveLength(0);
    await lookupEffect(byId, { idempotencyKey: "k", providerId: "dep 9" }, fetch, NOW);
    expect(seen[0]?.url).toBe("/deployments/dep%209?token=k");
  });

  const verdicts: [string, unknown, Partial<ReconcileSettings>, boolean | null][] = [
    ["a status in appliedValues", { id: "ch_1", status: "succeeded" }, {}, true],
    ["a status outside appliedValues", { id: "ch_1", status: "failed" }, {}, false],
    ["no status field in the answer", { id: "ch_1" }, {}, null],
    ["no appliedValues in the contract", { id: "ch_1", status: "succeeded" }, { appliedValues: [] }, null],
    ["no statusField in the contract: a record means it happened", { id: "ch_1" }, { statusField: undefined }, true],
    ["a dotted statusField", { data: { state: "succeeded" } }, { statusField: "data.state" }, true],
  ];
  it.each(verdicts)("judges %s", async (_name, body, overrides, applied) => {
    answer = json(200, body);
    const evidence = ok(await lookupEffect(settings(overrides), op, fetch, NOW));
    expect(evidence.applied).toBe(applied);
    expect(evidence.verdict.length).toBeGreaterThan(10);
  });

  it("reads the provider id from a dotted field", async () => {
    answer = json(200, { data: { charge: { id: "ch_deep" } }, status: "succeeded" });
    expect(ok(await lookupEffect(settings({ providerIdField: "data.charge.id" }), op, fetch, NOW)).providerId).toBe(
      "ch_deep",
    );
  });

  it("takes a 404 as proof that the effect did not happen", async () => {
    answer = json(404, { error: "no such charge" });
    expect(ok(await lookupEffect(settings(), op, fetch, NOW))).toMatchObject({
      status: 404,
      applied: false,
      providerId: null,
    });
  });

  it("cannot judge an answer that is not JSON when a status field is needed", async () => {
    answer = (res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>found</html>");
    };
    expect(ok(await lookupEffect(settings(), op, fetch, NOW))).toMatchObject({
      applied: null,
      excerpt: "<html>found</html>",
    });
  });

  it("keeps the first 2 KB as the excerpt, with the secret redacted", async () => {
    process.env[SECRET_ENV] = SECRET;
    const long = "x".repeat(5000);
    answer = json(200, { echoed: SECRET, id: "ch_2", status: "succeeded", long });
    const evidence = ok(await lookupEffect(settings({ authHeaderEnv: SECRET_ENV }), op, fetch, NOW));
    expect(evidence.excerpt).toHaveLength(2048);
    expect(evidence.truncated).toBe(true);
    expect(evidence.excerpt).toContain("[redacted]");
    expect(evidence.excerpt).not.toContain("sk_test_lookup_secret_42");
    expect(evidence.applied).toBe(true);
  });

  it.each([500, 503, 401, 403, 429])("is no evidence when the provider answers %i", async (status) => {
    answer = json(status, { error: "nope" });
    const evidence = failed(await lookupEffect(settings(), op, fetch, NOW));
    expect(evidence.status).toBe(status);
    expect(evidence.reason).toContain(String(status));
  });

  it("does not follow redirects", async () => {
    answer = (res) => {
      res.writeHead(302, { location: "http://127.0.0.1:9/elsewhere" });
      res.end();
    };
    expect(failed(await lookupEffect(settings(), op, fetch, NOW)).status).toBe(302);
    expect(seen).toHaveLength(1);
  });

  it("gives up after timeoutMs", async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    const evidence = failed(await lookupEffect(settings({ timeoutMs: 150 }), op, fetch, NOW));
    expect(evidence.reason).toContain("did not answer within 150 ms");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reports an unreachable provider", async () => {
    const evidence = failed(
      await lookupEffect(settings({ urlTemplate: "http://127.0.0.1:9/x/{idempotencyKey}" }), op, fetch, NOW),
    );
    expect(evidence.reason).toMatch(/could not be reached/);
  });

  it("is no evidence for a contract without a lookup", async () => {
    expect(failed(await lookupEffect({ method: "manual" }, op, fetch, NOW)).reason).toMatch(/no provider lookup/);
    expect(failed(await lookupEffect(null, op, fetch, NOW)).url).toBeNull();
    expect(seen).toHaveLength(0);
  });
});

describe("lookupUrl", () => {
  it("also fills percent-encoded placeholders", () => {
    expect(lookupUrl("http://p/x/%7BidempotencyKey%7D", { idempotencyKey: "a b", providerId: null })).toEqual({
      url: "http://p/x/a%20b",
    });
  });
});

describe("reconcileSuggestion and evidenceText", () => {
  const base0 = {
    ok: true as const,
    source: "provider_lookup" as const,
    url: "http://p/x",
    status: 200,
    excerpt: "{}",
    truncated: false,
    lookedUpAt: NOW.toISOString(),
    verdict: "v",
  };
  it("turns a definite answer into a reconciliation, and nothing else", () => {
    expect(reconcileSuggestion({ ...base0, providerId: "ch_1", applied: true })).toEqual({
      outcome: "applied",
      providerId: "ch_1",
    });
    expect(reconcileSuggestion({ ...base0, providerId: null, applied: false })).toEqual({ outcome: "not_applied" });
    expect(reconcileSuggestion({ ...base0, providerId: null, applied: null })).toBeNull();
    expect(
      reconcileSuggestion({
        ok: false,
        source: "provider_lookup",
        url: null,
        reason: "down",
        lookedUpAt: NOW.toISOString(),
      }),
    ).toBeNull();
  });

  it("writes the evidence as text for the reconcile form", () => {
    const text = evidenceText({ ...base0, providerId: "ch_1", applied: true });
    expect(text).toContain("GET http://p/x");
    expect(text).toContain("HTTP 200");
    expect(text).toContain("ch_1");
  });
});
