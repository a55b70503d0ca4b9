// The provider lookup against a real local HTTP server: URL filling, auth from an OPLEDGER_SECRET_* variable under the
// outbound rules, verdicts, timeouts and failures.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OutboundOptions } from "@/lib/services/outbound/send";
import {
  evidenceText,
  lookupEffect,
  lookupUrl,
  reconcileSuggestion,
  type LookupEvidence,
  type LookupTarget,
  type ReconcileSettings,
} from "./provider-lookup";

const NOW = new Date("2026-11-30T12:00:00.000Z");
const SECRET_ENV = "OPLEDGER_SECRET_TEST_LOOKUP";
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

/** The provider listens on loopback: allowed here, as OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on allows it. */
const LOOPBACK: OutboundOptions = { allowPrivate: true };

const lookup = (s: ReconcileSettings | null, target: LookupTarget = op, outbound: OutboundOptions = LOOPBACK) =>
  lookupEffect(s, target, NOW, outbound);

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
    const evidence = ok(await lookup(settings({ authHeaderEnv: SECRET_ENV })));
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

  it("refuses, without a request, when the variable is not set (never a lookup without its credentials)", async () => {
    const evidence = failed(await lookup(settings({ authHeaderEnv: SECRET_ENV })));
    expect(evidence.reason).toBe(
      `refused: ${SECRET_ENV} is not set in the server's environment, ` +
        "so the request was not sent (it would have gone without its credentials).",
    );
    expect(evidence.url).toContain("/charges/by-key/");
    expect(seen).toHaveLength(0);
  });

  it("refuses a variable outside OPLEDGER_SECRET_*, as a contract stored before the schema's rule could name", async () => {
    process.env.NEXTAUTH_SECRET_FOR_THIS_TEST = "opl_nextauth_value_that_must_not_leave";
    try {
      const old = { ...settings(), authHeaderEnv: "NEXTAUTH_SECRET_FOR_THIS_TEST" } as ReconcileSettings;
      const evidence = failed(await lookup(old));
      expect(evidence.reason).toMatch(/^refused: NEXTAUTH_SECRET_FOR_THIS_TEST is not an OPLEDGER_SECRET_\* variable/);
      expect(JSON.stringify(evidence)).not.toContain("opl_nextauth_value");
      expect(seen).toHaveLength(0);
    } finally {
      delete process.env.NEXTAUTH_SECRET_FOR_THIS_TEST;
    }
  });

  it("refuses a secret bound to another host, naming both", async () => {
    const environment = { [SECRET_ENV]: SECRET, [`${SECRET_ENV}_HOSTS`]: "api.payments.example" };
    const evidence = failed(
      await lookup(settings({ authHeaderEnv: SECRET_ENV }), op, { allowPrivate: true, environment }),
    );
    expect(evidence.reason).toBe(
      `refused: ${SECRET_ENV} may only be sent to api.payments.example; this request goes to 127.0.0.1.`,
    );
    expect(seen).toHaveLength(0);
  });

  it("refuses the provider's loopback address unless private addresses are allowed", async () => {
    const evidence = failed(await lookup(settings(), op, { allowPrivate: false }));
    expect(evidence.reason).toMatch(
      /^refused: 127\.0\.0\.1 is a loopback address; .*OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on/,
    );
    expect(seen).toHaveLength(0);
  });

  it("refuses the metadata address, whatever the settings, without waiting for a timeout", async () => {
    const started = Date.now();
    const evidence = failed(
      await lookup(
        settings({ urlTemplate: "http://169.254.169.254/latest/meta-data/{idempotencyKey}", timeoutMs: 30_000 }),
      ),
    );
    expect(evidence.reason).toMatch(/^refused: 169\.254\.169\.254 is the cloud metadata address/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("fills {providerId}, and refuses without a request when the operation has none", async () => {
    const byId = settings({ urlTemplate: `${base}/deployments/{providerId}?token={idempotencyKey}` });
    failed(await lookup(byId));
    expect(seen).toHaveLength(0);
    await lookup(byId, { idempotencyKey: "k", providerId: "dep 9" });
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
    const evidence = ok(await lookup(settings(overrides)));
    expect(evidence.applied).toBe(applied);
    expect(evidence.verdict.length).toBeGreaterThan(10);
  });

  it("reads the provider id from a dotted field", async () => {
    answer = json(200, { data: { charge: { id: "ch_deep" } }, status: "succeeded" });
    expect(ok(await lookup(settings({ providerIdField: "data.charge.id" }))).providerId).toBe("ch_deep");
  });

  it("takes a 404 as proof that the effect did not happen", async () => {
    answer = json(404, { error: "no such charge" });
    expect(ok(await lookup(settings()))).toMatchObject({
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
    expect(ok(await lookup(settings()))).toMatchObject({
      applied: null,
      excerpt: "<html>found</html>",
    });
  });

  it("keeps the first 2 KB as the excerpt, with the secret redacted", async () => {
    process.env[SECRET_ENV] = SECRET;
    const long = "x".repeat(5000);
    answer = json(200, { echoed: SECRET, id: "ch_2", status: "succeeded", long });
    const evidence = ok(await lookup(settings({ authHeaderEnv: SECRET_ENV })));
    expect(evidence.excerpt).toHaveLength(2048);
    expect(evidence.truncated).toBe(true);
    expect(evidence.excerpt).toContain("[redacted]");
    expect(evidence.excerpt).not.toContain("sk_test_lookup_secret_42");
    expect(evidence.applied).toBe(true);
  });

  it.each([500, 503, 401, 403, 429])("is no evidence when the provider answers %i", async (status) => {
    answer = json(status, { error: "nope" });
    const evidence = failed(await lookup(settings()));
    expect(evidence.status).toBe(status);
    expect(evidence.reason).toContain(String(status));
  });

  it("does not follow redirects", async () => {
    answer = (res) => {
      res.writeHead(302, { location: "http://127.0.0.1:9/elsewhere" });
      res.end();
    };
    const evidence = failed(await lookup(settings()));
    expect(evidence.status).toBe(302);
    expect(evidence.reason).toMatch(/^refused: .*do not follow redirects/);
    expect(seen).toHaveLength(1);
  });

  it("gives up after timeoutMs", async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    const evidence = failed(await lookup(settings({ timeoutMs: 150 })));
    expect(evidence.reason).toContain("did not answer within 150 ms");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reports an unreachable provider", async () => {
    const evidence = failed(await lookup(settings({ urlTemplate: "http://127.0.0.1:9/x/{idempotencyKey}" })));
    expect(evidence.reason).toMatch(/could not be reached/);
  });

  it("is no evidence for a contract without a lookup", async () => {
    expect(failed(await lookup({ method: "manual" })).reason).toMatch(/no provider lookup/);
    expect(failed(await lookup(null)).url).toBeNull();
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
