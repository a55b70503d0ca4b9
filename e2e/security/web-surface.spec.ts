// The web surface over HTTP, against the production build: console pages answer with real statuses before anything
// streams (307 to sign-in, 403, 404), every kind of response carries the security headers, JSON nested deeper than 64
// is a 400 and never a 500, the server listens on loopback unless told otherwise, and its files are its owner's only.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext, APIResponse } from "@playwright/test";
import { E2E_DB_URL } from "../fixtures/api";
import { expect, test } from "../fixtures/login";
import { LedgerSeed, type SeededOperation } from "../fixtures/seed";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { E2E_BASE_URL, REPO_ROOT, TEST_BOOTSTRAP_API_KEY } from "../fixtures/test-env";
import { signedIn, type PrincipalClient } from "./principals";
import { callAction, exposedAction } from "./server-actions";

const CONSOLE_DIR = path.join(REPO_ROOT, "app", "(console)");
const MISSING_OPERATION = "01ZZZZZZZZZZZZZZZZZZZZZZZZ";

interface ConsolePage {
  /** As the folder names it: "/operations/[id]". */
  route: string;
  /** The page calls forbidden(): only the admin role may see it. */
  adminOnly: boolean;
}

/** Every page.tsx under app/(console), read from the source, so a new page is covered without editing this spec. */
function consolePages(dir = CONSOLE_DIR): ConsolePage[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): ConsolePage[] => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return consolePages(full);
    if (entry.name !== "page.tsx") return [];
    const segments = path.relative(CONSOLE_DIR, dir).split(path.sep).filter(Boolean);
    const route = `/${segments.filter((s) => !/^\(.*\)$/.test(s)).join("/")}`;
    return [{ route, adminOnly: /\bforbidden\(\)/.test(readFileSync(full, "utf8")) }];
  });
}

/** A route with its dynamic segments filled with things the ledger has; an unknown segment fails the spec. */
function urlOf(route: string, values: Record<string, string>): string {
  return route.replace(/\[([^\]]+)\]/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${route}: no value for the dynamic segment [${name}]; add one here`);
    return encodeURIComponent(value);
  });
}

async function seedWorld(request: APIRequestContext): Promise<{ tool: string; op: SeededOperation; runId: string }> {
  const seed = new LedgerSeed(request);
  const tool = await seed.tool("PURE");
  // The operation belongs to a run, so the run page has something to show.
  const runId = `surface-run-${tool}`;
  return { tool, op: await seed.plan(tool, { runId }), runId };
}

const NO_REDIRECT = { failOnStatusCode: false, maxRedirects: 0 } as const;

/** Nothing of a rendered page: no document, no script, no RSC payload, no ledger data. */
function expectNoPageContent(text: string, secret: string, where: string): void {
  expect(text, where).not.toMatch(/<(!doctype|html|head|body|script|main)\b/i);
  expect(text, where).not.toContain("self.__next_f");
  expect(text, where).not.toContain(`"${secret}"`);
  expect(text, where).not.toContain(`>${secret}<`);
}

// ---------------------------------------------------------------------------------------------------------------
// Statuses

test("an anonymous request for any console page is a 307 to sign-in that keeps the path, with no page in it", async ({
  playwright,
  request,
}) => {
  const pages = consolePages();
  expect(pages.map((p) => p.route)).toEqual(expect.arrayContaining(["/", "/admin", "/operations/[id]"]));
  const { tool, op, runId } = await seedWorld(request);
  const anonymous = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  try {
    for (const { route } of pages) {
      const url = urlOf(route, { id: op.id, tool, runId });
      for (const [label, headers] of [
        ["no cookie", {}],
        ["a forged session cookie", { cookie: "next-auth.session-token=forged.session.token.value" }],
        ["a client-side navigation", { rsc: "1" }],
      ] as const) {
        const where = `GET ${url} with ${label}`;
        const response = await anonymous.get(url, { ...NO_REDIRECT, headers });
        expect(response.status(), where).toBe(307);
        const expected = url === "/" ? "/signin" : `/signin?callbackUrl=${encodeURIComponent(url)}`;
        expect(response.headers()["location"], where).toBe(expected);
        expectNoPageContent(await response.text(), tool, where);
      }
      // With a query, the query comes back after sign-in too.
      const withQuery = await anonymous.get(`${url}?from=1`, NO_REDIRECT);
      expect(withQuery.headers()["location"]).toBe(`/signin?callbackUrl=${encodeURIComponent(`${url}?from=1`)}`);
    }
    // The sign-in page itself is open.
    expect((await anonymous.get("/signin", NO_REDIRECT)).status()).toBe(200);
  } finally {
    await anonymous.dispose();
  }
});

test("a session ended elsewhere gets the same 307 from the page itself, before anything streams", async ({
  browser,
  playwright,
  request,
}) => {
  const { tool, op } = await seedWorld(request);
  const viewer = await signedIn(browser, "viewer", "surface-ended");
  // The cookie still decodes (proxy.ts lets it through), but signing out ends the session it belongs to.
  const state = await viewer.request.storageState();
  const csrf = ((await (await viewer.request.get("/api/auth/csrf")).json()) as { csrfToken: string }).csrfToken;
  const out = await viewer.request.post("/api/auth/signout", {
    headers: { origin: new URL(E2E_BASE_URL).origin },
    form: { csrfToken: csrf, callbackUrl: "/", json: "true" },
    ...NO_REDIRECT,
  });
  expect(out.status()).toBeLessThan(400);
  const stale = await playwright.request.newContext({ baseURL: E2E_BASE_URL, storageState: state });
  try {
    for (const url of ["/", "/audit", `/operations/${op.id}`, "/contracts", "/admin"]) {
      const response = await stale.get(url, NO_REDIRECT);
      expect(response.status(), url).toBe(307);
      expect(response.headers()["location"], url).toBe(
        url === "/" ? "/signin" : `/signin?callbackUrl=${encodeURIComponent(url)}`,
      );
      // Next.js sends its empty error document with a redirect a page throws: no console frame, no person, no data.
      const text = await response.text();
      for (const secret of [tool, viewer.actorId, "Signed in as", 'aria-label="Console"']) {
        expect(text.includes(secret), `${url}: the answer holds ${secret}`).toBe(false);
      }
    }
  } finally {
    await stale.dispose();
    await viewer.dispose();
  }
});

test("a page the role may not see answers 403 before streaming; every other console page 200", async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  const pages = consolePages();
  const adminOnly = pages.filter((p) => p.adminOnly).map((p) => p.route);
  // The pages that need the admin role, found by their forbidden() call; the list must not silently shrink.
  expect(adminOnly.sort()).toEqual(expect.arrayContaining(["/admin", "/contracts/[tool]/edit", "/contracts/new"]));
  const { tool, op, runId } = await seedWorld(request);
  const sessions: PrincipalClient[] = [];
  try {
    for (const role of ["viewer", "operator", "admin"] as const) {
      const session = await signedIn(browser, role, "surface");
      sessions.push(session);
      for (const page of pages) {
        const url = urlOf(page.route, { id: op.id, tool, runId });
        const response = await session.request.get(url, NO_REDIRECT);
        const text = await response.text();
        const where = `${role} GET ${url}: ${text.slice(0, 200)}`;
        if (page.adminOnly && role !== "admin") {
          expect(response.status(), where).toBe(403);
          expect(text, where).toContain("403 · forbidden");
          expect(text, where).toContain(session.actorId);
        } else {
          expect(response.status(), where).toBe(200);
        }
      }
    }
  } finally {
    await Promise.all(sessions.map((s) => s.dispose()));
  }
});

test("a missing operation or contract answers 404 before streaming", async ({ browser }) => {
  const viewer = await signedIn(browser, "viewer", "surface");
  try {
    const missingOperation = await viewer.request.get(`/operations/${MISSING_OPERATION}`, NO_REDIRECT);
    expect(missingOperation.status()).toBe(404);
    expect(await missingOperation.text()).toContain("There is no operation with this id");
    for (const url of ["/contracts/no.such.tool", "/nothing-lives-here"]) {
      expect((await viewer.request.get(url, NO_REDIRECT)).status(), url).toBe(404);
    }
  } finally {
    await viewer.dispose();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Headers

const REFERRER_POLICIES = ["strict-origin-when-cross-origin", "strict-origin", "same-origin", "no-referrer"];

function expectSecurityHeaders(response: APIResponse, where: string): void {
  const headers = response.headers();
  const csp = headers["content-security-policy"] ?? "";
  for (const directive of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'", "form-action 'self'"]) {
    expect(csp, `${where}: Content-Security-Policy`).toContain(directive);
  }
  // One policy, not two stacked ones.
  expect(csp, where).not.toContain(",");
  expect(headers["x-content-type-options"], where).toBe("nosniff");
  expect(REFERRER_POLICIES, `${where}: Referrer-Policy ${headers["referrer-policy"]}`).toContain(
    headers["referrer-policy"],
  );
  expect(headers["x-frame-options"], where).toBe("DENY");
}

interface ResponseKind {
  label: string;
  url: string;
  headers?: Record<string, string>;
  status: number;
  /** Asked without the viewer's session cookie. */
  anonymous?: boolean;
}

/** One of each kind of response the server gives. */
function responseKinds(opId: string, asset: string): ResponseKind[] {
  const key = { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` };
  return [
    { label: "a console page", url: "/", status: 200 },
    { label: "the redirect to sign-in", url: "/audit", status: 307, anonymous: true },
    { label: "the sign-in page", url: "/signin", status: 200, anonymous: true },
    { label: "a 404 page", url: `/operations/${MISSING_OPERATION}`, status: 404 },
    { label: "a 403 page", url: "/admin", status: 403 },
    { label: "the OpenAPI document", url: "/api/v1/openapi.json", status: 200, anonymous: true },
    { label: "an API answer", url: `/api/v1/operations/${opId}`, headers: key, status: 200, anonymous: true },
    { label: "a 401 problem document", url: "/api/v1/operations", status: 401, anonymous: true },
    { label: "a 404 problem document", url: "/api/v1/no-such-route", headers: key, status: 404, anonymous: true },
    {
      label: "the proxy's 400 problem",
      url: "/api/v1/operations/%E0%A4%A",
      headers: key,
      status: 400,
      anonymous: true,
    },
    { label: "a console route", url: "/api/console/counts", status: 200 },
    { label: "a static script", url: asset, status: 200, anonymous: true },
    { label: "a public file", url: "/favicon.ico", status: 200, anonymous: true },
    { label: "the health check", url: "/api/health", status: 200, anonymous: true },
  ];
}

test("every response carries the security headers, and no Strict-Transport-Security over plain http", async ({
  browser,
  playwright,
  request,
}) => {
  test.setTimeout(60_000);
  const { op } = await seedWorld(request);
  const viewer = await signedIn(browser, "viewer", "surface");
  const anonymous = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  try {
    const home = await viewer.request.get("/", NO_REDIRECT);
    const asset = /\/_next\/static\/[^"' ]+\.js/.exec(await home.text())?.[0];
    expect(asset, "the console page loads a script from /_next/static").toBeDefined();

    for (const kind of responseKinds(op.id, asset!)) {
      for (const https of [false, true]) {
        const where = `${kind.label} (GET ${kind.url}${https ? ", x-forwarded-proto: https" : ""})`;
        const response = await (kind.anonymous ? anonymous : viewer.request).get(kind.url, {
          ...NO_REDIRECT,
          headers: { ...kind.headers, ...(https ? { "x-forwarded-proto": "https" } : {}) },
        });
        expect(response.status(), where).toBe(kind.status);
        expectSecurityHeaders(response, where);
        // This server trusts no proxy (OPLEDGER_TRUSTED_PROXIES=0): a client's own X-Forwarded-Proto says nothing.
        const hsts = response.headers()["strict-transport-security"];
        expect(hsts, `${where}: no HSTS over plain http, whatever the client claims`).toBeUndefined();
      }
    }
  } finally {
    await viewer.dispose();
    await anonymous.dispose();
  }
});

test("a page's policy allows only scripts carrying its own fresh nonce, and Next.js puts it on every script", async ({
  browser,
  playwright,
}) => {
  const viewer = await signedIn(browser, "viewer", "surface");
  const anonymous = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  try {
    const nonces: string[] = [];
    for (const [client, url] of [
      [viewer.request, "/"],
      [viewer.request, "/audit"],
      [viewer.request, `/operations/${MISSING_OPERATION}`],
      [viewer.request, "/admin"],
      [anonymous, "/signin"],
    ] as const) {
      const response = await client.get(url, NO_REDIRECT);
      const csp = response.headers()["content-security-policy"] ?? "";
      const nonce = /script-src [^;]*'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      expect(nonce, `${url}: ${csp}`).toBeDefined();
      expect(csp, url).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      nonces.push(nonce!);
      const scripts = [...(await response.text()).matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length, url).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, url).toContain(`nonce="${nonce}"`);
    }
    expect(new Set(nonces).size, "a new nonce for every response").toBe(nonces.length);
  } finally {
    await viewer.dispose();
    await anonymous.dispose();
  }
});

test("the console works under its policy: sign in through the form, navigate, open a dialog, no violation", async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  // The fixture fails the test on any console error, which is how the browser reports a refused script or style.
  const violations: string[] = [];
  await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { reportViolation: (t: string) => void }).reportViolation(
        `${e.violatedDirective} ${e.blockedURI}`,
      ),
    );
  });
  await login("admin", { via: "form" });
  await expect(page.getByRole("heading", { level: 1, name: "Ledger" })).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Console" });
  await nav.getByRole("link", { name: "Users and API keys" }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole("heading", { level: 1, name: "Admin" })).toBeVisible();
  await page.getByRole("button", { name: "Create user" }).first().click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await nav.getByRole("link", { name: "Audit" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit" })).toBeVisible();
  // zod probes once whether it may compile validators with Function("") and falls back when the policy says no: that
  // probe is the one refusal expected. Anything else refused (a script, a style, a connection) is a bug.
  expect(violations.filter((v) => v !== "script-src eval")).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------
// Nesting depth

/** `depth` arrays inside each other around 1. */
const nestedArrays = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

test("a body nested deeper than 64 levels is a 400 problem, a 256 KiB tower of brackets included, never a 500", async ({
  request,
}) => {
  const seed = new LedgerSeed(request);
  const tool = await seed.tool("PURE");
  const post = (args: string) =>
    request.post("/api/v1/operations", {
      headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}`, "content-type": "application/json" },
      data: Buffer.from(`{"tool":${JSON.stringify(tool)},"args":${args}}`),
      failOnStatusCode: false,
    });
  const tower = (256 * 1024 - 200) / 2;
  for (const [label, args] of [
    ["a 256 KiB tower of arrays", `${"[".repeat(tower)}${"]".repeat(tower)}`],
    ["65 levels (the body object and 64 inside it)", nestedArrays(64)],
    ["deep inside an otherwise flat object", `{"a":1,"b":[2,3,{"c":${nestedArrays(70)}}]}`],
  ] as const) {
    const response = await post(args);
    const text = await response.text();
    expect(response.status(), `${label}: ${text.slice(0, 300)}`).toBe(400);
    expect(response.headers()["content-type"], label).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(text), label).toMatchObject({ status: 400, code: "invalid_body" });
    expect((JSON.parse(text) as { detail: string }).detail, label).toMatch(/nested more than 64 levels/);
  }
  // 64 levels, counting the body object, are accepted.
  const accepted = await post(nestedArrays(63));
  expect(accepted.status(), await accepted.text()).toBe(201);
});

test("a server action's arguments nested too deep are refused, never a 500, and change nothing", async ({
  browser,
  request,
}) => {
  const { op } = await seedWorld(request);
  const operator = await signedIn(browser, "operator", "surface");
  const reconcile = exposedAction("reconcileOperationAction");
  const headers = { origin: new URL(E2E_BASE_URL).origin };
  const args = (evidence: unknown) => [{ id: op.id, outcome: "applied", evidence, reason: "deep evidence" }];
  try {
    // Past 64 levels: the action's own check answers.
    const deep = await callAction(operator.request, reconcile, args(JSON.parse(nestedArrays(70))), headers);
    expect(deep.status, deep.text.slice(0, 300)).toBe(200);
    expect(deep.result).toMatchObject({ ok: false, code: "invalid_input" });
    expect((deep.result as { message: string }).message).toMatch(/nested more than 64 levels/);

    // Thousands of levels would overflow React's decoder before the action runs: proxy.ts answers 400 first.
    const response = await operator.request.post(reconcile.page, {
      headers: {
        ...headers,
        "next-action": reconcile.id,
        "content-type": "text/plain;charset=UTF-8",
        accept: "text/x-component",
      },
      data: Buffer.from(JSON.stringify(args("x")).replace('"x"', nestedArrays(100_000))),
      failOnStatusCode: false,
      maxRedirects: 0,
    });
    const text = await response.text();
    expect(response.status(), text.slice(0, 300)).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ status: 400, code: "invalid_input" });
    expect((await new LedgerSeed(request).get(op.id)).phase).toBe(op.phase);
  } finally {
    await operator.dispose();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The server process

test("the e2e server's SQLite files are readable by their owner only", () => {
  test.skip(!E2E_DB_URL.startsWith("file:"), "the e2e database is PostgreSQL");
  const file = path.resolve(E2E_DB_URL.slice("file:".length).split("?")[0]!);
  const mode = (f: string) => (statSync(f).mode & 0o777).toString(8);
  expect(mode(path.dirname(file)), "the data directory").toBe("700");
  for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe("600");
});

/**
 * Behind one trusted proxy: HSTS when the proxy says https (and not when only the client's own entry does), and bad API
 * keys throttled per client address (429 with Retry-After) while a valid key from that address still works.
 */
async function behindOneProxy(base: string): Promise<void> {
  const get = (path: string, headers: Record<string, string>) =>
    fetch(`${base}${path}`, { headers, redirect: "manual" });
  const hsts = async (proto: string) =>
    (await get("/api/health", { "x-forwarded-proto": proto })).headers.get("strict-transport-security");
  expect(await hsts("https"), "the proxy says https").toMatch(/max-age=\d{8}/);
  expect(await hsts("http"), "the proxy says http").toBeNull();
  expect(await hsts("https, http"), "only the client's own entry says https").toBeNull();

  // Bad keys from one address until it is throttled (lib/platform/auth/key-authentication.ts: 300 a minute), 401 until then.
  const flood = { "x-forwarded-for": "203.0.113.9" };
  const statuses: number[] = [];
  let throttled: Response | null = null;
  while (!throttled && statuses.length < 1000) {
    const answer = await get("/api/v1/operations", { ...flood, authorization: `Bearer opl_bad_${statuses.length}` });
    statuses.push(answer.status);
    if (answer.status === 429) throttled = answer;
    else await answer.arrayBuffer();
  }
  expect(throttled, "a flood of bad keys from one address is throttled").not.toBeNull();
  expect(new Set(statuses.slice(0, -1)), "bad keys before the throttle").toEqual(new Set([401]));
  expect(Number(throttled!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(throttled!.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(await throttled!.json()).toMatchObject({ status: 429, code: "too_many_bad_keys" });
  const valid = await get("/api/v1/operations", { ...flood, authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` });
  expect(valid.status, "a valid key from the throttled address").toBe(200);
  const elsewhere = await get("/api/v1/operations", {
    "x-forwarded-for": "203.0.113.10",
    authorization: "Bearer opl_bad",
  });
  expect(elsewhere.status, "a bad key from another address").toBe(401);
}

test("the server listens on loopback unless HOSTNAME says otherwise, and warns when exposed over plain http", async () => {
  test.setTimeout(240_000);
  const port = extraPort(8);
  const loopback = await ServerProcess.start({
    name: "default-host server",
    port,
    databaseUrl: E2E_DB_URL,
    // One proxy in front: X-Forwarded-For and X-Forwarded-Proto are read past it (the cases below).
    env: { HOSTNAME: "", OPLEDGER_TRUSTED_PROXIES: "1" },
  });
  try {
    expect(loopback.logs()).toContain(`opledger: listening on http://127.0.0.1:${port}`);
    expect(loopback.logs()).not.toContain("warning: listening on");
    await behindOneProxy(loopback.url);
  } finally {
    // Draining is two-instances.spec.ts's subject; here the process group just goes.
    await loopback.stop("SIGKILL");
  }
  const exposed = await ServerProcess.start({
    name: "all-interfaces server",
    port,
    databaseUrl: E2E_DB_URL,
    env: { HOSTNAME: "0.0.0.0" },
  });
  try {
    const warnings = exposed
      .logs()
      .split("\n")
      .filter((line) => line.includes("warning: listening on"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/every network interface \(HOSTNAME=0\.0\.0\.0\) over plain http/);
    expect(exposed.logs()).toContain(`opledger: listening on http://0.0.0.0:${port}`);
  } finally {
    await exposed.stop("SIGKILL");
  }
});
