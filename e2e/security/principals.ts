// The principals the security specs act as (nobody, three console users, scoped API keys, a revoked key), and the world
// they act on.
import type { APIRequestContext, Browser, PlaywrightWorkerArgs } from "@playwright/test";
import { createFreshKey, revokeKey, type Scope } from "../fixtures/api";
import { ensureUser, signInThroughApi, TEST_USER_PASSWORD, type TestRole } from "../fixtures/login";
import { LedgerSeed, uniqueName, type SeededOperation } from "../fixtures/seed";
import { E2E_BASE_URL } from "../fixtures/test-env";
import type { Principal, Seen, World } from "./matrix";

type Playwright = PlaywrightWorkerArgs["playwright"];

export interface PrincipalClient {
  name: Principal;
  /** Carries the session cookie for console users. */
  request: APIRequestContext;
  /** What the principal presents on every request besides cookies (a bearer key). */
  headers: Record<string, string>;
  /** Who the audit log would name if this principal wrote something. */
  actorId: string;
  dispose: () => Promise<void>;
}

/** Console users of each spec's own (`prefix`), so no other spec's actions show up as theirs in the audit log. */
export function securityUser(role: TestRole, prefix: string) {
  return { email: `${prefix}-${role}@opledger.test`, password: TEST_USER_PASSWORD, role };
}

export async function signedIn(browser: Browser, role: TestRole, prefix = "matrix"): Promise<PrincipalClient> {
  const user = securityUser(role, prefix);
  await ensureUser(user);
  const context = await browser.newContext({ baseURL: E2E_BASE_URL });
  const page = await context.newPage();
  await signInThroughApi(page, user);
  return { name: role, request: context.request, headers: {}, actorId: user.email, dispose: () => context.close() };
}

async function bare(
  playwright: Playwright,
  name: Principal,
  headers: Record<string, string>,
  actorId: string,
): Promise<PrincipalClient> {
  const request = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  return { name, request, headers, actorId, dispose: () => request.dispose() };
}

/** The audit log names a key by its name and the first 12 characters of the secret (lib/api/route.ts apiActor). */
function keyActor(name: string, key: string): string {
  return `${name} (${key.slice(0, 12)}…)`;
}

export async function keyed(
  playwright: Playwright,
  name: Principal,
  scopes: Scope[],
  revoked = false,
): Promise<PrincipalClient> {
  const created = await createFreshKey(scopes);
  if (revoked) await revokeKey(created.id);
  return bare(playwright, name, { authorization: `Bearer ${created.key}` }, keyActor(created.name, created.key));
}

export async function allPrincipals(
  playwright: Playwright,
  browser: Browser,
): Promise<Map<Principal, PrincipalClient>> {
  const list = await Promise.all([
    bare(playwright, "anonymous", {}, "anonymous"),
    signedIn(browser, "viewer"),
    signedIn(browser, "operator"),
    signedIn(browser, "admin"),
    keyed(playwright, "agent key", ["agent"]),
    keyed(playwright, "operator key", ["operator"]),
    keyed(playwright, "admin key", ["admin"]),
    keyed(playwright, "revoked key", ["agent", "operator", "admin"], true),
  ]);
  return new Map(list.map((p) => [p.name, p]));
}

const seenOf = (op: SeededOperation): Seen => ({
  phase: op.phase,
  attempt: op.attempt,
  approvedAttempt: op.approvedAttempt,
  evidence: op.evidence,
});

/** Seeds, with the bootstrap key, one operation in every phase a guarded request could move. */
export async function seedWorld(request: APIRequestContext): Promise<World> {
  const seed = new LedgerSeed(request);
  const dependency = uniqueName("security-dep");
  const tool = await seed.tool("IDEMPOTENT", { dependency });
  const nonRetryable = await seed.tool("NON_RETRYABLE");
  const planned = await seed.plan(tool);
  const toClaim = await seed.plan(tool);
  const claimedFence = await seed.claim(toClaim.id, uniqueName("security-worker"));
  const dispatched = await seed.dispatched(tool);
  const unknown = await seed.unknown(tool);
  const awaiting = await seed.awaitingApproval(nonRetryable);
  const target = await createFreshKey(["agent"]);
  return {
    tool,
    dependency,
    plannedId: planned.id,
    claimed: { id: toClaim.id, fence: claimedFence },
    dispatched: { id: dispatched.op.id, fence: dispatched.fence },
    unknown: { id: unknown.op.id, seen: seenOf(unknown.op) },
    awaiting: { id: awaiting.op.id, seen: seenOf(awaiting.op) },
    targetKeyId: target.id,
  };
}

/** Every operation and tool of the world, for a ledger snapshot. */
export function worldSubjects(w: World): { operationIds: string[]; tools: string[] } {
  return {
    operationIds: [w.plannedId, w.claimed.id, w.dispatched.id, w.unknown.id, w.awaiting.id],
    tools: [w.tool],
  };
}
