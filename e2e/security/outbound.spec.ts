// Outbound requests made on the operator's behalf, over HTTP against the production build: a contract cannot name
// NEXTAUTH_SECRET (or any variable outside OPLEDGER_SECRET_*), and provider lookups to the metadata address, private
// ranges and loopback are refused before anything is contacted, by the recovery sweep and the console's lookup alike.
//
// The spec runs its own server, on a fresh database, with OPLEDGER_OUTBOUND_ALLOW_PRIVATE=off said out loud: the
// shared e2e server may allow private addresses for the demo world's loopback providers.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { expect, test, type APIRequestContext, type BrowserContext } from "@playwright/test";
import { judgeAddress } from "@/lib/services/outbound/address-policy";
import { api, errorFields, expectProblem } from "../fixtures/api";
import { signInThroughApi, testUser } from "../fixtures/login";
import { LedgerSeed, type SeededOperation } from "../fixtures/seed";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { TEST_NEXTAUTH_SECRET } from "../fixtures/test-env";
import { freshDatabase, type FreshDatabase } from "../scale-out/support/fresh-database";
import { callAction, exposedAction } from "./server-actions";

const SECRET_NAME = "OPLEDGER_SECRET_E2E_PAYMENTS";
const SECRET_VALUE = "Bearer sk_e2e_outbound_secret_0123456789";
const SECRET_HOST = "payments.invalid";
/** Seven ticks of the e2e server's 200 ms sweep and then some. */
const SWEEP_GRACE_MS = 2000;

/** A listener that counts every connection, not only whole requests: "nothing contacted" means no TCP either. */
interface Listener {
  host: string;
  port: number;
  connections: number;
  requests: string[];
  server: Server;
}

async function listen(host: string): Promise<Listener | null> {
  const server = createServer();
  const listener: Listener = { host, port: 0, connections: 0, requests: [], server };
  server.on("connection", () => listener.connections++);
  server.on("request", (req, res) => {
    listener.requests.push(`${req.method} ${req.url} authorization=${req.headers.authorization ?? "-"}`);
    res.writeHead(200, { "content-type": "application/json" }).end('{"status":"succeeded","id":"stolen"}');
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, host, resolve);
    });
  } catch {
    return null; // The address is not configured on this machine.
  }
  listener.port = (server.address() as AddressInfo).port;
  return listener;
}

function urlOf(l: Listener, path: string): string {
  return `http://${l.host.includes(":") ? `[${l.host}]` : l.host}:${l.port}${path}`;
}

/** This machine's own addresses on a real interface, when the outbound rules count them as non-public. */
function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => !a.internal && !a.address.startsWith("fe80"))
    .map((a) => a.address)
    .filter((address) => !judgeAddress(address, false).allowed);
}

let database: FreshDatabase;
let server: ServerProcess;
let request: APIRequestContext;
let admin: BrowserContext;
const listeners: Listener[] = [];

test.beforeAll(async ({ playwright, browser }) => {
  test.setTimeout(180_000);
  const port = extraPort(7);
  database = await freshDatabase(`outbound_${port}`);
  server = await ServerProcess.start({
    name: "outbound rules server",
    port,
    databaseUrl: database.url,
    env: {
      OPLEDGER_OUTBOUND_ALLOW_PRIVATE: "off",
      [SECRET_NAME]: SECRET_VALUE,
      [`${SECRET_NAME}_HOSTS`]: SECRET_HOST,
    },
  });
  request = await playwright.request.newContext({ baseURL: server.url });
  admin = await browser.newContext({ baseURL: server.url });
  await signInThroughApi(await admin.newPage(), testUser("admin"));
  for (const host of ["127.0.0.1", "127.0.0.2", "::1", ...interfaceAddresses()]) {
    const listener = await listen(host);
    if (listener) listeners.push(listener);
  }
});

test.afterAll(async () => {
  // Stopping waits for the server to drain (up to 30 s on a loaded machine).
  test.setTimeout(90_000);
  for (const l of listeners) {
    l.server.closeAllConnections();
    await new Promise<void>((resolve) => l.server.close(() => resolve()));
  }
  await request?.dispose();
  await admin?.close();
  // The server's whole output: no secret of its environment may have been printed.
  const logs = server?.logs() ?? "";
  await server?.stop("SIGTERM");
  await database?.drop();
  expect(logs).not.toContain("sk_e2e_outbound_secret");
  expect(logs).not.toContain(TEST_NEXTAUTH_SECRET);
});

function heard(): string[] {
  return listeners.flatMap((l) =>
    l.connections > 0 ? [`${l.host}:${l.port}: ${l.connections} connection(s) ${l.requests.join("; ")}`] : [],
  );
}

/** A REPLAYABLE tool with a manual contract, and one of its operations left UNKNOWN (the sweep's candidates). */
async function unknownOperation(seed: LedgerSeed, reconcile: Record<string, unknown> | null = null) {
  const tool = await seed.tool("REPLAYABLE", reconcile ? { reconcile } : {});
  const { op } = await seed.unknown(tool);
  return { tool, op };
}

function lookupContract(urlTemplate: string, extra: Record<string, unknown> = {}) {
  return {
    method: "lookup",
    urlTemplate,
    timeoutMs: 10_000,
    statusField: "status",
    appliedValues: ["succeeded"],
    auto: true,
    ...extra,
  };
}

interface LookupAnswer {
  ok: boolean;
  data?: { found: { ok: boolean; reason?: string; url: string | null }; text: string };
}

/** The console's "Run provider lookup", as an operator's browser sends it. */
async function consoleLookup(op: SeededOperation): Promise<{ reason: string; text: string; ms: number }> {
  const started = Date.now();
  const answer = await callAction(admin.request, exposedAction("lookupOperationAction"), [{ id: op.id }], {
    origin: server.url,
  });
  const ms = Date.now() - started;
  const result = answer.result as LookupAnswer | undefined;
  expect(result, `lookup action for ${op.id}: ${answer.status} ${answer.text.slice(0, 300)}`).toMatchObject({
    ok: true,
  });
  const found = result?.data?.found;
  expect(found?.ok, `the lookup of ${op.id} should have been refused`).toBe(false);
  return { reason: found?.reason ?? "", text: result?.data?.text ?? "", ms };
}

test("a contract naming NEXTAUTH_SECRET or another server variable is refused at save, and nothing is ever sent", async () => {
  test.setTimeout(60_000);
  const seed = new LedgerSeed(request);
  const { tool, op } = await unknownOperation(seed, { method: "manual" });
  const target = listeners.find((l) => l.host !== "127.0.0.1") ?? listeners[0];
  expect(target, "a listener on an address other than the server's").toBeDefined();

  for (const name of ["NEXTAUTH_SECRET", "DATABASE_URL", "OPLEDGER_ADMIN_PASSWORD", "opledger_secret_e2e_payments"]) {
    const put = await api(request).putContract(tool, {
      effect: "REPLAYABLE",
      idempotencyKey: "optional",
      reconcile: lookupContract(urlOf(target!, "/steal/{idempotencyKey}"), { authHeaderEnv: name }),
      approval: "not_required",
      maxAttempts: 3,
      backoff: { baseMs: 10, maxMs: 20 },
    });
    const problem = expectProblem(put, 400, "invalid_body");
    expect(errorFields(problem), `authHeaderEnv ${name}`).toEqual(["reconcile.authHeaderEnv"]);
    expect(problem.errors?.["reconcile.authHeaderEnv"]?.join(" ")).toContain("OPLEDGER_SECRET_");
  }

  // The contract is still the manual one, so the sweep has nothing to send, and sends nothing.
  const stored = await api(request).getContract(tool);
  expect(stored.status).toBe(200);
  expect((stored.body as { version: number; reconcile: unknown }).reconcile).toEqual({ method: "manual" });
  await new Promise((resolve) => setTimeout(resolve, SWEEP_GRACE_MS));
  expect(heard()).toEqual([]);
  expect((await seed.get(op.id)).phase).toBe("UNKNOWN");
});

test(
  "lookups to the metadata address, private ranges and loopback are refused by the sweep and the console, and " +
    "nothing is contacted",
  async () => {
    test.setTimeout(120_000);
    const seed = new LedgerSeed(request);
    const on = (host: string) => listeners.find((l) => l.host === host);
    const cases: { name: string; url: string; reason: RegExp }[] = [
      {
        name: "the cloud metadata address",
        url: "http://169.254.169.254/latest/meta-data/iam/security-credentials/{idempotencyKey}",
        reason: /^refused: 169\.254\.169\.254 is the cloud metadata address; outbound requests never go there\.$/,
      },
      {
        name: "a 10.x address",
        url: "http://10.0.0.1/v1/charges/{idempotencyKey}",
        reason: new RegExp(
          String.raw`^refused: 10\.0\.0\.1 is a private \(RFC 1918\) address; ` +
            String.raw`outbound requests go there only with OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on\.$`,
        ),
      },
      {
        name: "a 192.168.x address",
        url: "http://192.168.1.1:8080/v1/charges/{idempotencyKey}",
        reason: /^refused: 192\.168\.1\.1 is a private \(RFC 1918\) address/,
      },
      {
        name: "the metadata address, IPv4-mapped",
        url: "http://[::ffff:169.254.169.254]/latest/meta-data/{idempotencyKey}",
        reason: /^refused: ::ffff:a9fe:a9fe is the cloud metadata address \(169\.254\.169\.254\)/,
      },
    ];
    for (const l of listeners) {
      cases.push({
        name: `a listener on ${l.host}`,
        url: urlOf(l, "/v1/charges/{idempotencyKey}"),
        reason:
          /^refused: .* is (a|an) [^;]+; outbound requests go there only with OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on\.$/,
      });
    }
    const second = on("127.0.0.2");
    if (second) {
      cases.push({
        name: "a loopback listener, IPv4-mapped",
        url: `http://[::ffff:127.0.0.2]:${second.port}/v1/charges/{idempotencyKey}`,
        reason: /^refused: ::ffff:7f00:2 is a loopback address \(127\.0\.0\.2\)/,
      });
    }
    const first = on("127.0.0.1");
    if (first) {
      cases.push({
        name: "localhost",
        url: `http://localhost:${first.port}/v1/charges/{idempotencyKey}`,
        reason: /^refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/,
      });
    }

    const ops: { name: string; op: SeededOperation; reason: RegExp }[] = [];
    for (const c of cases) {
      const { op } = await unknownOperation(seed, lookupContract(c.url));
      ops.push({ name: c.name, op, reason: c.reason });
    }
    // The sweep has had its turns at every one of them.
    await new Promise((resolve) => setTimeout(resolve, SWEEP_GRACE_MS));
    expect(heard()).toEqual([]);
    for (const { name, op } of ops) expect((await seed.get(op.id)).phase, name).toBe("UNKNOWN");

    // A person's lookup from the console: refused, saying which rule, at once (no connection waited out its timeout).
    for (const { name, op, reason } of ops) {
      const lookup = await consoleLookup(op);
      expect(lookup.reason, name).toMatch(reason);
      expect(lookup.ms, `${name}: refused before any connection`).toBeLessThan(5000);
    }
    expect(heard()).toEqual([]);
  },
);

test("the server's own secret goes only to its bound host, only over https, and is never shown", async () => {
  test.setTimeout(60_000);
  const seed = new LedgerSeed(request);
  const cases = [
    {
      url: "https://collector.example/v1/charges/{idempotencyKey}",
      secret: SECRET_NAME,
      reason: `refused: ${SECRET_NAME} may only be sent to ${SECRET_HOST}; this request goes to collector.example.`,
    },
    {
      url: `http://${SECRET_HOST}/v1/charges/{idempotencyKey}`,
      secret: SECRET_NAME,
      reason: `refused: ${SECRET_NAME} is only sent over https (or to a loopback address); this request is plain http to ${SECRET_HOST}.`,
    },
    {
      url: `https://${SECRET_HOST}/v1/charges/{idempotencyKey}`,
      secret: "OPLEDGER_SECRET_E2E_NOT_SET",
      reason:
        "refused: OPLEDGER_SECRET_E2E_NOT_SET is not set in the server's environment, so the request was not " +
        "sent (it would have gone without its credentials).",
    },
  ];
  for (const c of cases) {
    const { op } = await unknownOperation(seed, lookupContract(c.url, { authHeaderEnv: c.secret }));
    const lookup = await consoleLookup(op);
    expect(lookup.reason).toBe(c.reason);
    expect(lookup.text).not.toContain("sk_e2e_outbound_secret");
    const page = await admin.request.get(`/operations/${op.id}`);
    expect(await page.text()).not.toContain("sk_e2e_outbound_secret");
  }
  expect(heard()).toEqual([]);
});
