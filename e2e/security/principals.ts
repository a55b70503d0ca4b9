// The principals the security specs act as (nobody, three console users, agent keys A and B, keys bound to a person,
// the bootstrap key, a metrics key, a revoked key), and the world they act on.
import type { APIRequestContext, Browser, PlaywrightWorkerArgs } from "@playwright/test";
import { createFreshKey, revokeKey, userIdOf, type Scope } from "../fixtures/api";
import { ensureUser, signInThroughApi, TEST_USER_PASSWORD, type TestRole } from "../fixtures/login";
import { LedgerSeed, uniqueName, type SeededOperation } from "../fixtures/seed";
import { E2E_BASE_URL, TEST_BOOTSTRAP_API_KEY } from "../fixtures/test-env";
import type { Principal, Seen, World } from "./matrix";

type Playwright = PlaywrightWorkerArgs["playwright"];

export interface PrincipalClient {
  name: Principal;
  /** Carries the session cookie for console users. */
  request: APIRequestContext;
  /** What the principal presents on every request besides cookies (a bearer key). */
  headers: Record<string, string>;
  /** The API key's secret, for keys. */
  key?: string;
  /** How the principal reads on a page: a console user's email, a key's id ("anonymous", "bootstrap" otherwise). */
  actorId: string;
  /**
   * The ids the audit log would name if this principal wrote something: a key's id; a person's user id (and their email,
   * which audit records of older builds used as the id).
   */
  actorIds: string[];
  dispose: () => Promise<void>;
}

/** Console users of each spec's own (`prefix`), so no other spec's actions show up as theirs in the audit log. */
export function securityUser(role: TestRole, prefix: string) {
  return { email: `${prefix}-${role}@opledger.test`, password: TEST_USER_PASSWORD, role };
}

/** A person of the spec's own, created if need be. */
export async function securityPerson(role: TestRole, prefix: string) {
  const user = securityUser(role, prefix);
  await ensureUser(user);
  return user;
}

/** The signed-in user's id, as the session says it (else read from the database by email). */
async function sessionUserId(request: APIRequestContext, email: string): Promise<string> {
  const session = (await (await request.get("/api/auth/session")).json()) as { userId?: unknown };
  return typeof session.userId === "string" ? session.userId : userIdOf(email);
}

export async function signedIn(browser: Browser, role: TestRole, prefix = "matrix"): Promise<PrincipalClient> {
  const user = await securityPerson(role, prefix);
  const context = await browser.newContext({ baseURL: E2E_BASE_URL });
  const page = await context.newPage();
  await signInThroughApi(page, user);
  return {
    name: role,
    request: context.request,
    headers: {},
    actorId: user.email,
    actorIds: [await sessionUserId(context.request, user.email), user.email],
    dispose: () => context.close(),
  };
}

export async function bare(
  playwright: Playwright,
  name: Principal,
  headers: Record<string, string>,
  actorIds: string[],
  key?: string,
): Promise<PrincipalClient> {
  const request = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  return {
    name,
    request,
    headers,
    actorId: actorIds[0] ?? name,
    actorIds,
    ...(key ? { key } : {}),
    dispose: () => request.dispose(),
  };
}

/**
 * A new key with these scopes; an operator or admin key is bound to `owner` (an email: the spec's person of that role
 * by default).
 */
export async function keyed(
  playwright: Playwright,
  name: Principal,
  scopes: Scope[],
  options: { revoked?: boolean; owner?: string } = {},
): Promise<PrincipalClient> {
  const created = await createFreshKey(scopes, options.owner ? { owner: options.owner } : {});
  if (options.revoked) await revokeKey(created.id);
  return bare(playwright, name, { authorization: `Bearer ${created.key}` }, [created.id], created.key);
}

/** The bootstrap key (OPLEDGER_BOOTSTRAP_API_KEY): its own principal, every scope, no person. */
async function bootstrap(playwright: Playwright): Promise<PrincipalClient> {
  // Its id is not known to the specs, and it writes seeds all the time: its own writes are not fingerprinted.
  return bare(
    playwright,
    "bootstrap key",
    { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` },
    [],
    TEST_BOOTSTRAP_API_KEY,
  );
}

export async function allPrincipals(
  playwright: Playwright,
  browser: Browser,
  prefix = "matrix",
): Promise<Map<Principal, PrincipalClient>> {
  // The people the operator and admin keys act as, of the spec's own (so the audit filter by person sees only them).
  const [operatorPerson, adminPerson] = await Promise.all([
    securityPerson("operator", `${prefix}-key`),
    securityPerson("admin", `${prefix}-key`),
  ]);
  const list = await Promise.all([
    bare(playwright, "anonymous", {}, []),
    signedIn(browser, "viewer", prefix),
    signedIn(browser, "operator", prefix),
    signedIn(browser, "admin", prefix),
    keyed(playwright, "agent key A", ["agent"]),
    keyed(playwright, "agent key B", ["agent"]),
    keyed(playwright, "operator key", ["operator"], { owner: operatorPerson.email }),
    keyed(playwright, "admin key", ["admin"], { owner: adminPerson.email }),
    bootstrap(playwright),
    keyed(playwright, "metrics key", ["metrics"]),
    keyed(playwright, "revoked key", ["agent", "operator", "admin", "metrics"], {
      revoked: true,
      owner: adminPerson.email,
    }),
  ]);
  return new Map(list.map((p) => [p.name, p]));
}

const seenOf = (op: SeededOperation): Seen => ({
  phase: op.phase,
  attempt: op.attempt,
  approvedAttempt: op.approvedAttempt,
  evidence: op.evidence,
});

/**
 * Seeds one operation in every phase a guarded request could move, all planned and driven by `plannerKey` (agent key
 * A in the role matrix; the bootstrap key by default), so they are that key's own operations.
 */
export async function seedWorld(
  request: APIRequestContext,
  plannerKey: string = TEST_BOOTSTRAP_API_KEY,
): Promise<World> {
  const seed = new LedgerSeed(request, plannerKey);
  const dependency = uniqueName("security-dep");
  const tool = await seed.tool("IDEMPOTENT", { dependency });
  const nonRetryable = await seed.tool("NON_RETRYABLE");
  const args = { to: "customer@example.com", amount: 1200, currency: "EUR", world: uniqueName("args") };
  const planned = await seed.plan(tool, { args });
  const toClaim = await seed.plan(tool);
  const claimedFence = await seed.claim(toClaim.id, uniqueName("security-worker"));
  const dispatched = await seed.dispatched(tool);
  const confirmed = await seed.confirmed(tool);
  const unknown = await seed.unknown(tool);
  const awaiting = await seed.awaitingApproval(nonRetryable);
  const target = await createFreshKey(["agent"]);
  return {
    tool,
    dependency,
    planned: { id: planned.id, idempotencyKey: planned.idempotencyKey, args },
    claimed: { id: toClaim.id, fence: claimedFence },
    dispatched: { id: dispatched.op.id, fence: dispatched.fence },
    confirmedId: confirmed.op.id,
    unknown: { id: unknown.op.id, seen: seenOf(unknown.op) },
    awaiting: { id: awaiting.op.id, seen: seenOf(awaiting.op) },
    toolOperations: 5,
    targetKeyId: target.id,
  };
}

/** Every operation and tool of the world, for a ledger snapshot. */
export function worldSubjects(w: World): { operationIds: string[]; tools: string[] } {
  return {
    operationIds: [w.planned.id, w.claimed.id, w.dispatched.id, w.confirmedId, w.unknown.id, w.awaiting.id],
    tools: [w.tool],
  };
}
