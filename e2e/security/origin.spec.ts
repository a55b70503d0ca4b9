// Cross-site requests and spoofed internal headers: every server action and every cookie-authenticated write, derived
// from the build's manifest and the route table, is refused from another site before it runs and changes nothing; no
// header stands in for a session or a key.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { E2E_BASE_URL, REPO_ROOT } from "../fixtures/test-env";
import { LedgerSeed } from "../fixtures/seed";
import { expectUnchanged, snapshotLedger, type SnapshotScope } from "./ledger-snapshot";
import { MATRIX, rowId, type ActionRow } from "./matrix";
import { securityUser, seedWorld, signedIn, worldSubjects, type PrincipalClient } from "./principals";
import { callAction, exposedAction, exposedActions, refusedBeforeRunning } from "./server-actions";
import { routeHandlers } from "./surface";

// Each test signs a person of its own in (created through the CLI on first use): seconds on a busy 2-core machine.
test.describe.configure({ timeout: 120_000 });

const SAME_ORIGIN = new URL(E2E_BASE_URL).origin;
/** How a request shows it comes from another site: a foreign Origin, or the browser's Sec-Fetch-Site and no Origin. */
const FOREIGN: readonly (readonly [string, Record<string, string>])[] = [
  ["a foreign Origin", { origin: "https://evil.example" }],
  ["Origin: null", { origin: "null" }],
  ["the same host on another port", { origin: `http://127.0.0.1:${Number(new URL(E2E_BASE_URL).port) + 1}` }],
  ["Sec-Fetch-Site: cross-site and no Origin", { "sec-fetch-site": "cross-site" }],
  ["Sec-Fetch-Site: same-site and no Origin", { "sec-fetch-site": "same-site" }],
];

const DEPENDENCY_STATE = "/api/console/dependencies";

async function breakerOf(session: APIRequestContext, name: string): Promise<unknown> {
  const response = await session.get(DEPENDENCY_STATE);
  expect(response.status()).toBe(200);
  const { items } = (await response.json()) as { items: { name: string }[] };
  const row = items.find((d) => d.name === name);
  expect(row, `dependency ${name} is listed`).toBeDefined();
  const { state, forced, forcedReason, forcedBy, updatedAt } = row as Record<string, unknown>;
  // What a person's override changes; the failure counts around it belong to the ledger's traffic.
  return { state, forced, forcedReason, forcedBy, updatedAt };
}

async function expectProblem(response: APIResponse, status: number, code: string) {
  const text = await response.text();
  expect(response.status(), text.slice(0, 300)).toBe(status);
  expect(response.headers()["content-type"]).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(text)).toMatchObject({ status, code });
}

/**
 * Route handlers a session cookie authenticates (consoleRoute, next-auth), found in their source under app/; the agent
 * plane's routes (lib/agent-plane) take API keys only.
 */
function cookieAuthenticatedHandlers(): string[] {
  const appDir = path.join(REPO_ROOT, "app");
  return routeHandlers().filter((handler) => {
    const route = handler.split(" ")[1]!;
    const file = path.join(appDir, ...route.split("/").filter(Boolean), "route.ts");
    return existsSync(file) && /consoleRoute\(|NextAuth\(/.test(readFileSync(file, "utf8"));
  });
}

/** The concrete requests a cookie-authenticated write route takes: next-auth's POST actions, or the route itself. */
function concretePaths(route: string): string[] {
  if (route === "/api/auth/[...nextauth]")
    return ["/api/auth/signout", "/api/auth/callback/credentials", "/api/auth/signin/credentials", "/api/auth/_log"];
  return [route.replace(/\[[^\]]+\]/g, "origin-placeholder")];
}

test("every server action the build exposes, sent from another site, never runs; from the console's origin it does", async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  const world = await seedWorld(request);
  // An admin's session: every action's role check would let the call through, so only the Origin can stop it.
  const admin = await signedIn(browser, "admin", "origin");
  try {
    const exposed = exposedActions();
    const rows = MATRIX.filter((r): r is ActionRow => r.kind === "action" && exposed.has(rowId(r)));
    // Derived from the build's manifest: every action a request can reach, each with a valid input from the matrix.
    expect(rows.map(rowId).sort(), "every exposed action has a valid input in matrix.ts").toEqual(
      [...exposed.keys()].sort(),
    );
    const scope: SnapshotScope = { ...worldSubjects(world), actorIds: admin.actorIds };
    const before = await snapshotLedger(request, admin.request, scope);
    const breakerBefore = await breakerOf(admin.request, world.dependency);
    const refusals: string[] = [];

    for (const row of rows) {
      const action = exposed.get(rowId(row))!;
      for (const [label, headers] of FOREIGN) {
        const answer = await callAction(admin.request, action, [row.valid(world)], headers);
        const where = `${rowId(row)} with ${label}: ${answer.status} ${answer.text.slice(0, 200)}`;
        expect(answer.result, `${where}: no action result may come back`).toBeUndefined();
        const refused = refusedBeforeRunning(answer);
        expect(refused, `${where}: not the 403 cross_site_request problem`).toBe("403 cross_site_request");
        refusals.push(`${rowId(row)} (${label}): ${refused}`);
      }
      // The control: from the console's own origin the same action is reached (and refuses an empty input), so the
      // refusals above were about the Origin alone.
      const reached = await callAction(admin.request, action, [{}], { origin: SAME_ORIGIN });
      expect(reached.result, `${rowId(row)} from the console's origin`).toMatchObject({
        ok: false,
        code: "invalid_input",
      });
    }
    console.log(
      `[security] ${refusals.length} cross-site action calls refused before running:\n  ${refusals.join("\n  ")}`,
    );
    // Nothing ran: no audit record by the admin, no change to the world, the breaker as it was.
    expect(await breakerOf(admin.request, world.dependency)).toEqual(breakerBefore);
    expectUnchanged(before, await snapshotLedger(request, admin.request, scope));

    // The positive control: a valid call from the console's own origin runs and changes what the refused ones did not.
    const force = exposedAction("forceDependencyBreaker");
    const ok = await callAction(
      admin.request,
      force,
      [{ name: world.dependency, state: "open", reason: "same origin" }],
      { origin: SAME_ORIGIN },
    );
    expect(ok.result).toMatchObject({ ok: true, data: { changed: true } });
    expect(await breakerOf(admin.request, world.dependency)).not.toEqual(breakerBefore);
  } finally {
    await admin.dispose();
  }
});

test("every cookie-authenticated route that writes refuses another site with 403 before anything runs; console reads stay open", async ({
  browser,
  request,
}) => {
  const admin = await signedIn(browser, "admin", "origin");
  try {
    const handlers = cookieAuthenticatedHandlers();
    const writes = handlers.filter((h) => !h.startsWith("GET "));
    // Today the console's own routes only read, so next-auth's POST (sign-in, sign-out) is the one cookie-authenticated
    // write; a console route that writes would join this list by itself, and must then answer the same 403.
    expect(writes, "cookie-authenticated write handlers").toContain("POST /api/auth/[...nextauth]");
    const before = await snapshotLedger(request, admin.request, {
      operationIds: [],
      tools: [],
      actorIds: admin.actorIds,
    });
    let refused = 0;
    for (const handler of writes) {
      const [method, route] = handler.split(" ") as [string, string];
      for (const target of concretePaths(route)) {
        for (const [label, headers] of FOREIGN) {
          const response = await admin.request.fetch(target, {
            method,
            headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
            data: `csrfToken=${encodeURIComponent(await csrfToken(admin.request))}&callbackUrl=%2F&json=true`,
            failOnStatusCode: false,
            maxRedirects: 0,
          });
          await expectProblem(response, 403, "cross_site_request");
          // Refused before next-auth ran: it sets no cookie.
          expect(response.headers()["set-cookie"], `${method} ${target} with ${label} set a cookie`).toBeUndefined();
          refused += 1;
        }
      }
    }
    console.log(
      `[security] ${refused} cross-site writes to cookie-authenticated routes refused with 403 (${writes.join(", ")})`,
    );
    expect(await sessionEmail(admin.request), "still signed in").toBe(admin.actorId);

    // Console routes: methods they do not serve are Next.js's 405; reads stay open whatever the Origin.
    const consoleRoutes = [...new Set(handlers.map((h) => h.split(" ")[1]!))].filter((r) =>
      r.startsWith("/api/console/"),
    );
    expect(consoleRoutes.length).toBeGreaterThan(0);
    for (const route of consoleRoutes) {
      const target = route.replace(/\[[^\]]+\]/g, "origin-placeholder");
      for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
        if (writes.includes(`${method} ${route}`)) continue;
        const response = await admin.request.fetch(target, {
          method,
          headers: { origin: "https://evil.example", "content-type": "application/json" },
          data: "{}",
          failOnStatusCode: false,
          maxRedirects: 0,
        });
        expect(response.status(), `${method} ${route} (not served)`).toBe(405);
      }
      if (handlers.includes(`GET ${route}`)) {
        const read = await admin.request.get(target, {
          headers: { origin: "https://evil.example" },
          failOnStatusCode: false,
        });
        expect(read.status(), `GET ${route} with a foreign Origin`).not.toBe(403);
      }
    }
    expectUnchanged(
      before,
      await snapshotLedger(request, admin.request, { operationIds: [], tools: [], actorIds: admin.actorIds }),
    );
  } finally {
    await admin.dispose();
  }
});

async function csrfToken(session: APIRequestContext): Promise<string> {
  const response = await session.get("/api/auth/csrf");
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

async function sessionEmail(session: APIRequestContext): Promise<string | null> {
  const body = (await (await session.get("/api/auth/session")).json()) as { user?: { email?: string } };
  return body.user?.email ?? null;
}

test("next-auth refuses a sign-out or a sign-in sent from another site, even with a valid CSRF token", async ({
  browser,
  playwright,
}) => {
  const viewer: PrincipalClient = await signedIn(browser, "viewer", "origin");
  const stranger = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  try {
    for (const [label, headers] of FOREIGN) {
      const out = await viewer.request.post("/api/auth/signout", {
        headers,
        form: { csrfToken: await csrfToken(viewer.request), callbackUrl: "/", json: "true" },
        failOnStatusCode: false,
        maxRedirects: 0,
      });
      await expectProblem(out, 403, "cross_site_request");
      expect(await sessionEmail(viewer.request), `still signed in after a sign-out with ${label}`).toBe(viewer.actorId);
      expect((await viewer.request.get("/api/console/counts")).status()).toBe(200);

      // Login CSRF: another site signing the visitor in as someone else.
      const user = securityUser("viewer", "origin");
      const signIn = await stranger.post("/api/auth/callback/credentials", {
        headers,
        form: {
          csrfToken: await csrfToken(stranger),
          email: user.email,
          password: user.password,
          callbackUrl: "/",
          json: "true",
        },
        failOnStatusCode: false,
        maxRedirects: 0,
      });
      await expectProblem(signIn, 403, "cross_site_request");
      expect(await sessionEmail(stranger), `no session after a sign-in with ${label}`).toBeNull();
    }
    // The control: from the console's own origin the same sign-out works.
    const out = await viewer.request.post("/api/auth/signout", {
      headers: { origin: SAME_ORIGIN },
      form: { csrfToken: await csrfToken(viewer.request), callbackUrl: "/", json: "true" },
      failOnStatusCode: false,
      maxRedirects: 0,
    });
    expect(out.status()).toBeLessThan(400);
    expect(await sessionEmail(viewer.request)).toBeNull();
  } finally {
    await viewer.dispose();
    await stranger.dispose();
  }
});

test("a console session cookie alone does not authenticate /api/v1", async ({ browser, request }) => {
  const admin = await signedIn(browser, "admin", "origin");
  try {
    const tool = await new LedgerSeed(request).tool("PURE");
    const before = await snapshotLedger(request, admin.request, {
      operationIds: [],
      tools: [tool],
      actorIds: admin.actorIds,
    });
    await expectProblem(await admin.request.get("/api/v1/operations"), 401, "unauthorized");
    await expectProblem(await admin.request.get("/api/v1/contracts"), 401, "unauthorized");
    await expectProblem(await admin.request.get("/api/v1/metrics"), 401, "unauthorized");
    for (const origin of [SAME_ORIGIN, "https://evil.example"]) {
      await expectProblem(
        await admin.request.post("/api/v1/operations", {
          headers: { origin },
          data: { tool, args: { from: "a cookie" } },
          failOnStatusCode: false,
        }),
        401,
        "unauthorized",
      );
    }
    expectUnchanged(
      before,
      await snapshotLedger(request, admin.request, { operationIds: [], tools: [tool], actorIds: admin.actorIds }),
    );
  } finally {
    await admin.dispose();
  }
});

/**
 * Answers Next.js gives by itself without running the route or page, with nothing in them: a middleware prefetch
 * (200 "{}" with x-middleware-skip) and an RSC request without its query (307 to the same path with ?_rsc).
 */
function isEmptyAnswer(response: APIResponse, text: string): boolean {
  const status = response.status();
  const headers = response.headers();
  return (
    (status === 200 && text.trim() === "{}" && headers["x-middleware-skip"] === "1") ||
    (status === 307 && /[?&]_rsc\b/.test(headers["location"] ?? "") && text === "")
  );
}

/** An anonymous request with internal headers: the usual refusal, or an empty answer; never ledger data (`secret`). */
async function expectRefused(
  response: APIResponse,
  status: number,
  code: string,
  secret: string,
  where: string,
): Promise<void> {
  const text = await response.text();
  expect(text.includes(secret), `${where}: the answer holds ledger data`).toBe(false);
  if (isEmptyAnswer(response, text)) return;
  expect(response.status(), `${where}: ${text.slice(0, 200)}`).toBe(status);
  expect(response.headers()["content-type"], where).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(text), where).toMatchObject({ status, code });
}

/**
 * A console page refuses an anonymous visitor by redirecting to /signin: a 307 before streaming starts, or, once the
 * layout has streamed, a 200 whose only content is Next's redirect (meta refresh and RSC redirect). Either way no
 * ledger data (`secret`, a tool name only the ledger knows) is in the answer.
 */
async function expectSentToSignIn(response: APIResponse, secret: string, where: string): Promise<void> {
  const body = await response.text();
  expect(body.includes(secret), `${where}: the answer holds ledger data`).toBe(false);
  if (isEmptyAnswer(response, body)) return;
  if (response.status() === 307) expect(response.headers()["location"], where).toMatch(/\/signin(\?|$)/);
  else {
    expect(response.status(), where).toBe(200);
    expect(body, where).toMatch(
      /<meta id="__next-page-redirect" http-equiv="refresh" content="\d+;url=\/signin(\?[^"]*)?"/,
    );
  }
}

/** Headers Next.js or its hosts use internally; none of them may stand in for a session or a key. */
const INTERNAL_HEADERS: Record<string, string>[] = [
  { "x-middleware-subrequest": "middleware" },
  { "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware" },
  { "x-middleware-subrequest": "proxy:proxy:proxy:proxy:proxy" },
  { "x-middleware-subrequest": "src/middleware:src/middleware:src/middleware:src/middleware:src/middleware" },
  { "x-middleware-prefetch": "1" },
  { "x-middleware-invoke": "1" },
  { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
  { "x-forwarded-host": new URL(E2E_BASE_URL).host, "x-forwarded-for": "127.0.0.1" },
  { "x-invoke-path": "/api/health", "x-invoke-query": "{}" },
  { "x-invoke-output": "/api/health", "x-matched-path": "/api/health" },
  { "x-now-route-matches": "1" },
  { "x-nextjs-data": "1" },
  { rsc: "1", "next-router-prefetch": "1" },
  { "x-vercel-id": "1", "x-real-ip": "127.0.0.1" },
];

test(
  "internal headers from an anonymous client change nothing: routes still 401, pages still ask to sign in, " +
    "actions still refuse",
  async ({ playwright, request, browser }) => {
    test.setTimeout(90_000);
    const anonymous = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
    const admin = await signedIn(browser, "admin", "origin");
    try {
      const seed = new LedgerSeed(request);
      const tool = await seed.tool("PURE");
      const op = await seed.plan(tool);
      const lookup = exposedAction("lookupOperationAction");
      const scope: SnapshotScope = { operationIds: [op.id], tools: [tool], actorIds: [] };
      const before = await snapshotLedger(request, admin.request, scope);
      // The control for the "no ledger data" check below: signed in, the operation's page does name its tool.
      expect(await (await admin.request.get(`/operations/${op.id}`)).text()).toContain(tool);

      for (const headers of INTERNAL_HEADERS) {
        const label = JSON.stringify(headers);
        const options = { headers, failOnStatusCode: false, maxRedirects: 0 };
        await expectRefused(
          await anonymous.get("/api/console/counts", options),
          401,
          "unauthenticated",
          tool,
          `counts with ${label}`,
        );
        await expectRefused(
          await anonymous.get(`/api/console/operations/${op.id}`, options),
          401,
          "unauthenticated",
          tool,
          `console operation with ${label}`,
        );
        await expectRefused(
          await anonymous.get(`/api/v1/operations/${op.id}`, options),
          401,
          "unauthorized",
          tool,
          `v1 operation with ${label}`,
        );
        const claim = { ...options, data: { workerId: "header-intruder", leaseMs: 60_000 } };
        await expectRefused(
          await anonymous.post(`/api/v1/operations/${op.id}/claim`, claim),
          401,
          "unauthorized",
          tool,
          `claim with ${label}`,
        );
        for (const page of ["/", "/admin", `/operations/${op.id}`]) {
          await expectSentToSignIn(
            await anonymous.get(page, { headers, failOnStatusCode: false, maxRedirects: 0 }),
            tool,
            `${page} with ${label}`,
          );
        }
        const action = await callAction(anonymous, lookup, [{ id: op.id }], headers);
        expect(action.text.includes(tool), `lookup action with ${label}: the answer holds ledger data`).toBe(false);
        if (!isEmptyAnswer(action.response, action.text)) {
          expect(action.result, `lookup action with ${label}: ${action.text.slice(0, 200)}`).toMatchObject({
            ok: false,
            code: "unauthenticated",
          });
        }
      }
      expectUnchanged(before, await snapshotLedger(request, admin.request, scope));
    } finally {
      await anonymous.dispose();
      await admin.dispose();
    }
  },
);
