// The role matrix: for every API route + method and every console server action, what each principal gets back, plus
// the authority rules behind the ledger's door (own operations, the human gate). The spec and docs/security.md both
// come from this one table.
export const PRINCIPALS = [
  "anonymous",
  "viewer",
  "operator",
  "admin",
  "agent key A",
  "agent key B",
  "operator key",
  "admin key",
  "bootstrap key",
  "metrics key",
  "revoked key",
] as const;
export type Principal = (typeof PRINCIPALS)[number];

type Role = "viewer" | "operator" | "admin";
export type MatrixScope = "agent" | "operator" | "admin" | "metrics";

/** An API key principal: its scopes and its person (operator and admin keys, docs/authority.md#principals). */
export interface KeyPrincipal {
  scopes: readonly MatrixScope[];
  /** The role of the person the key acts as; null for agent keys, the bootstrap key and metrics keys. */
  person: Role | null;
}

const ROLE_OF: Partial<Record<Principal, Role>> = { viewer: "viewer", operator: "operator", admin: "admin" };

/** Every live key of the matrix. The revoked key had every scope; it is absent here because it no longer opens. */
export const KEY_OF: Partial<Record<Principal, KeyPrincipal>> = {
  "agent key A": { scopes: ["agent"], person: null },
  "agent key B": { scopes: ["agent"], person: null },
  "operator key": { scopes: ["operator"], person: "operator" },
  "admin key": { scopes: ["admin"], person: "admin" },
  "bootstrap key": { scopes: ["agent", "operator", "admin", "metrics"], person: null },
  "metrics key": { scopes: ["metrics"], person: null },
};

/** The key that planned (and so owns) every operation of the world; agent key B acts on operations it does not own. */
export const WORLD_PLANNER: Principal = "agent key A";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** What the spec seeds before the matrix runs: the subjects a request would change if its guard let it through. */
export interface World {
  tool: string;
  dependency: string;
  /** PLANNED, never claimed; `idempotencyKey` and `args` as planned, for a replay of the plan by another key. */
  planned: { id: string; idempotencyKey: string; args: unknown };
  /** PLANNED and claimed by the seed's worker. */
  claimed: { id: string; fence: number };
  /** DISPATCHED by the seed's worker. */
  dispatched: { id: string; fence: number };
  /** CONFIRMED: nothing left to run or reject. */
  confirmedId: string;
  unknown: { id: string; seen: Seen };
  awaiting: { id: string; seen: Seen };
  /** How many operations of `tool` the world holds (all planned by WORLD_PLANNER). */
  toolOperations: number;
  /** A live key an admin action could revoke. */
  targetKeyId: string;
}

export interface Seen {
  phase: string;
  attempt: number;
  approvedAttempt: number | null;
  evidence: string;
}

/**
 * Who gets through: everyone (with one fixed answer), a console session with at least `role`, or an API key with one
 * of `scopes` (any key when empty; an admin-scope key always). `allowed` is the answer for those let through;
 * `own: true` (a read of one operation) answers 404 to an agent key that did not plan it.
 */
export type Guard =
  | { kind: "everyone"; status: number }
  | { kind: "session"; role: Role; allowed: number }
  | { kind: "key"; scopes: MatrixScope[]; allowed: number; own?: boolean };

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteRow {
  kind: "route";
  method: Method;
  /** The route as its folder under app/ names it. */
  route: string;
  guard: Guard;
  /** The concrete path the spec requests. */
  path: (w: World) => string;
  /**
   * A valid body, sent by every principal the guard refuses (so a missing check would change something the spec
   * looks at). Principals it lets through send `{}`, which every write route refuses with 400: nothing changes.
   */
  valid?: (w: World) => unknown;
}

/**
 * A rule behind a route's scope check, tried by every principal with the same valid body: who owns an operation,
 * who may open the human gate. Bodies and targets are chosen so that no principal's call changes anything: those the
 * rule lets through are stopped by the next check (the operation's phase, a live lease), which names itself in the
 * answer. Cells are "status code" (or "status" and how many of the world's operations a list shows).
 */
export interface RuleRow {
  kind: "rule";
  method: Method;
  route: string;
  /** What the row tries; the table names the row `METHOD route · what`. */
  what: string;
  /** The scope check of the route (as its endpoint in lib/agent-plane/handlers names it). */
  scopes: MatrixScope[];
  path: (w: World) => string;
  body?: (w: World) => unknown;
  /** The answer to a key that passes the scope check. */
  answer: (key: KeyPrincipal, p: Principal) => string;
}

export interface ActionRow {
  kind: "action";
  file: string;
  name: string;
  /** null: no page imports the action, so it is not in the build's server-reference manifest and cannot be called. */
  role: Role | null;
  /** Valid input, sent by every principal the role refuses; principals it lets through send `{}` (invalid_input). */
  valid: (w: World) => unknown;
}

export type MatrixRow = RouteRow | RuleRow | ActionRow;

/** Answers of a route outside its guard, and the results of a server action. */
export const ACTION_REFUSED_ANONYMOUS = "unauthenticated";
export const ACTION_REFUSED_ROLE = "forbidden";
export const ACTION_ALLOWED = "invalid_input";
export const ACTION_NOT_EXPOSED = "not exposed";

const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

// ---------------------------------------------------------------------------------------------------------------
// The authority rules (docs/authority.md), as lib/platform/auth/roles.ts and lib/ledger/commands/authority.ts apply them

/** requireScope: an admin-scope key may do everything; otherwise one of the named scopes (any key when none). */
export function passesScope(key: KeyPrincipal, scopes: readonly MatrixScope[]): boolean {
  return key.scopes.includes("admin") || scopes.length === 0 || scopes.some((s) => key.scopes.includes(s));
}

/** Keys with the operator or admin scope read (and reconcile, reject) every operation; an agent key only its own. */
function seesAll(key: KeyPrincipal): boolean {
  return key.scopes.includes("operator") || key.scopes.includes("admin");
}

/** The agent's lane (claim, heartbeat, dispatch, outcome): only the key that planned the operation. */
const ownsWorld = (p: Principal) => p === WORLD_PLANNER;

/** The shared lane (read, reconcile, reject, approve): every operation for a key that sees all, else its own. */
const reaches = (key: KeyPrincipal, p: Principal) => seesAll(key) || ownsWorld(p);

/** The human gate: a key bound to a person with the operator role or above. */
const isPerson = (key: KeyPrincipal) => key.person !== null && RANK[key.person] >= RANK.operator;

// ---------------------------------------------------------------------------------------------------------------
// Rows

/** The methods a v1 route refuses with a 405 problem document (lib/platform/http/problem.ts otherMethods), for everyone. */
function refusedMethods(route: string, served: Method[], path: (w: World) => string): RouteRow[] {
  return OTHER_METHODS.filter((m) => !served.includes(m)).map((method) => ({
    kind: "route",
    method,
    route,
    guard: { kind: "everyone", status: 405 },
    path,
  }));
}

const op = (id: string) => `/api/v1/operations/${encodeURIComponent(id)}`;
const reason = "role matrix: this must never be recorded";
/** A name in a body: accepted for older clients and ignored, never a credential (docs/authority.md#principals). */
const FORGED_ACTOR = "admin@opledger.test";

function contractBody(w: World) {
  return {
    effect: "NON_RETRYABLE",
    idempotencyKey: "optional",
    reconcile: null,
    approval: "required",
    maxAttempts: 9,
    backoff: { baseMs: 1, maxMs: 2 },
    dependency: w.dependency,
    description: "changed by a request that should have been refused",
  };
}

function v1Operation(
  sub: string,
  scopes: MatrixScope[],
  target: (w: World) => string,
  valid: (w: World) => unknown,
): RouteRow[] {
  const route = `/api/v1/operations/[id]/${sub}`;
  const path = (w: World) => `${op(target(w))}/${sub}`;
  return [
    { kind: "route", method: "POST", route, guard: { kind: "key", scopes, allowed: 400 }, path, valid },
    ...refusedMethods(route, ["POST"], path),
  ];
}

const consoleGet = (route: string, path: (w: World) => string = () => route): RouteRow => ({
  kind: "route",
  method: "GET",
  route,
  guard: { kind: "session", role: "viewer", allowed: 200 },
  path,
});

const consoleAdminGet = (route: string): RouteRow => ({
  ...consoleGet(route),
  guard: { kind: "session", role: "admin", allowed: 200 },
});

/** A webhook no one created: whoever gets past the guard is told 404, so nothing is sent or changed. */
const MATRIX_WEBHOOK = "matrix-hook";
const webhook = (sub = "") => `/api/v1/webhooks/${MATRIX_WEBHOOK}${sub}`;
/** A webhook body that would be saved (the e2e server holds OPLEDGER_SECRET_E2E_WEBHOOK, a whsec_ secret). */
const webhookBody = () => ({
  url: "https://hooks.example.com/opledger",
  events: ["operation.unknown"],
  secret: "OPLEDGER_SECRET_E2E_WEBHOOK",
  format: "json",
});
/** A bulk job no one started: whoever gets past the guard is told 404 (or 400 for an empty body). */
const MATRIX_JOB = "01JMATRIXNOSUCHJOB00000000";
const bulkPreviewBody = () => ({ action: "reject", filter: { phase: "PLANNED" }, reason, dryRun: true });
const breakerBody = () => ({ failureThreshold: 1, cooldownMs: 3_600_000, probes: 100, reason, expectedVersion: 0 });

const catchAll = "/api/v1/[[...path]]";

/** The scope checks of the operation routes, as their handlers name them. */
const AGENT_LANE: MatrixScope[] = ["agent"];
const SHARED_LANE: MatrixScope[] = ["agent", "operator"];
const READERS: MatrixScope[] = ["agent", "operator"];

export const MATRIX: readonly MatrixRow[] = [
  // next-auth: public by design. A POST without next-auth's CSRF token is sent back to the sign-out page.
  {
    kind: "route",
    method: "GET",
    route: "/api/auth/[...nextauth]",
    guard: { kind: "everyone", status: 200 },
    path: () => "/api/auth/session",
  },
  {
    kind: "route",
    method: "POST",
    route: "/api/auth/[...nextauth]",
    guard: { kind: "everyone", status: 302 },
    path: () => "/api/auth/signout",
  },

  consoleGet("/api/console/audit"),
  consoleGet("/api/console/counts"),
  consoleGet("/api/console/dependencies"),
  consoleGet("/api/console/metrics"),
  consoleGet("/api/console/operations"),
  consoleGet("/api/console/operations/[id]", (w) => `/api/console/operations/${w.planned.id}`),
  consoleGet("/api/console/queue", () => "/api/console/queue?phase=UNKNOWN"),
  consoleGet("/api/console/search", () => "/api/console/search?q=matrix"),
  {
    ...consoleGet("/api/console/bulk/[jobId]", () => `/api/console/bulk/${MATRIX_JOB}`),
    guard: { kind: "session", role: "viewer", allowed: 404 },
  },
  {
    kind: "route",
    method: "GET",
    route: "/api/console/runs/[runId]",
    guard: { kind: "session", role: "viewer", allowed: 404 },
    path: () => "/api/console/runs/matrix-no-such-run",
  },
  consoleAdminGet("/api/console/webhooks"),
  {
    ...consoleAdminGet("/api/console/webhooks/[name]/deliveries"),
    guard: { kind: "session", role: "admin", allowed: 404 },
    path: () => `/api/console/webhooks/${MATRIX_WEBHOOK}/deliveries`,
  },

  {
    kind: "route",
    method: "GET",
    route: "/api/health",
    guard: { kind: "everyone", status: 200 },
    path: () => "/api/health",
  },
  {
    kind: "route",
    method: "GET",
    route: "/api/health/live",
    guard: { kind: "everyone", status: 200 },
    path: () => "/api/health/live",
  },

  ...OTHER_METHODS.map((method): RouteRow => ({
    kind: "route",
    method,
    route: catchAll,
    guard: { kind: "everyone", status: 404 },
    path: () => "/api/v1/no-such-endpoint",
  })),

  // The MCP gateway: agent keys (and admin-scope keys, as everywhere). Those let through get the transport's own
  // JSON-RPC answer: 406, since the matrix's requests do not accept an event stream as MCP clients must.
  {
    kind: "route",
    method: "POST",
    route: "/mcp",
    guard: { kind: "key", scopes: ["agent"], allowed: 406 },
    path: () => "/mcp",
    valid: () => ({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "role matrix", version: "1" } },
    }),
  },
  {
    kind: "route",
    method: "GET",
    route: "/mcp",
    guard: { kind: "key", scopes: ["agent"], allowed: 406 },
    path: () => "/mcp",
  },
  {
    kind: "route",
    method: "DELETE",
    route: "/mcp",
    guard: { kind: "key", scopes: ["agent"], allowed: 200 },
    path: () => "/mcp",
  },

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/contracts",
    guard: { kind: "key", scopes: READERS, allowed: 200 },
    path: () => "/api/v1/contracts",
  },
  ...refusedMethods("/api/v1/contracts", ["GET"], () => "/api/v1/contracts"),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/contracts/[tool]",
    guard: { kind: "key", scopes: READERS, allowed: 200 },
    path: (w) => `/api/v1/contracts/${w.tool}`,
  },
  {
    kind: "route",
    method: "PUT",
    route: "/api/v1/contracts/[tool]",
    guard: { kind: "key", scopes: ["admin"], allowed: 400 },
    path: (w) => `/api/v1/contracts/${w.tool}`,
    valid: contractBody,
  },
  ...refusedMethods("/api/v1/contracts/[tool]", ["GET", "PUT"], (w) => `/api/v1/contracts/${w.tool}`),

  // A run's allowance: agent keys only, and only the run's own key; the world's run has none, so a read is 404.
  {
    kind: "route",
    method: "GET",
    route: "/api/v1/runs/[runId]",
    guard: { kind: "key", scopes: ["agent"], allowed: 404 },
    path: (w) => `/api/v1/runs/matrix-${w.tool}`,
  },
  {
    kind: "route",
    method: "PUT",
    route: "/api/v1/runs/[runId]",
    guard: { kind: "key", scopes: ["agent"], allowed: 400 },
    path: (w) => `/api/v1/runs/matrix-${w.tool}`,
    valid: () => ({ maxRetries: 3 }),
  },
  ...refusedMethods("/api/v1/runs/[runId]", ["GET", "PUT"], (w) => `/api/v1/runs/matrix-${w.tool}`),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/metrics",
    guard: { kind: "key", scopes: ["metrics", "operator"], allowed: 200 },
    path: () => "/api/v1/metrics",
  },
  ...refusedMethods("/api/v1/metrics", ["GET"], () => "/api/v1/metrics"),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/openapi.json",
    guard: { kind: "everyone", status: 200 },
    path: () => "/api/v1/openapi.json",
  },
  ...refusedMethods("/api/v1/openapi.json", ["GET"], () => "/api/v1/openapi.json"),

  ...v1Operation(
    "approve",
    SHARED_LANE,
    (w) => w.awaiting.id,
    () => ({ actor: FORGED_ACTOR, reason }),
  ),
  ...v1Operation(
    "claim",
    AGENT_LANE,
    (w) => w.planned.id,
    () => ({ workerId: "matrix-intruder", leaseMs: 60_000 }),
  ),
  ...v1Operation(
    "dispatch",
    AGENT_LANE,
    (w) => w.claimed.id,
    (w) => ({ fence: w.claimed.fence }),
  ),
  ...v1Operation(
    "heartbeat",
    AGENT_LANE,
    (w) => w.claimed.id,
    (w) => ({ fence: w.claimed.fence, leaseMs: 3_600_000 }),
  ),
  ...v1Operation(
    "outcome",
    AGENT_LANE,
    (w) => w.dispatched.id,
    (w) => ({ fence: w.dispatched.fence, result: "confirmed", providerId: "prov-intruder" }),
  ),
  ...v1Operation(
    "reconcile",
    SHARED_LANE,
    (w) => w.unknown.id,
    () => ({ outcome: "applied", providerId: "prov-intruder", evidence: { by: "intruder" }, reason }),
  ),
  ...v1Operation(
    "replay",
    SHARED_LANE,
    (w) => w.confirmedId,
    () => ({ args: { intruder: true }, reason }),
  ),
  ...v1Operation(
    "reject",
    SHARED_LANE,
    (w) => w.awaiting.id,
    () => ({ actor: FORGED_ACTOR, reason }),
  ),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/operations/[id]",
    guard: { kind: "key", scopes: READERS, allowed: 200, own: true },
    path: (w) => op(w.planned.id),
  },
  ...refusedMethods("/api/v1/operations/[id]", ["GET"], (w) => op(w.planned.id)),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/operations",
    guard: { kind: "key", scopes: READERS, allowed: 200 },
    path: () => "/api/v1/operations",
  },
  {
    kind: "route",
    method: "POST",
    route: "/api/v1/operations",
    guard: { kind: "key", scopes: AGENT_LANE, allowed: 400 },
    path: () => "/api/v1/operations",
    valid: (w) => ({ tool: w.tool, args: { intruder: true }, idempotencyKey: "matrix-intruder" }),
  },
  ...refusedMethods("/api/v1/operations", ["GET", "POST"], () => "/api/v1/operations"),

  {
    kind: "route",
    method: "POST",
    route: "/api/v1/bulk",
    guard: { kind: "key", scopes: ["operator"], allowed: 400 },
    path: () => "/api/v1/bulk",
    valid: bulkPreviewBody,
  },
  ...refusedMethods("/api/v1/bulk", ["POST"], () => "/api/v1/bulk"),
  {
    kind: "route",
    method: "GET",
    route: "/api/v1/bulk/[jobId]",
    guard: { kind: "key", scopes: ["operator"], allowed: 404 },
    path: () => `/api/v1/bulk/${MATRIX_JOB}`,
  },
  ...refusedMethods("/api/v1/bulk/[jobId]", ["GET"], () => `/api/v1/bulk/${MATRIX_JOB}`),
  {
    kind: "route",
    method: "POST",
    route: "/api/v1/bulk/[jobId]/cancel",
    guard: { kind: "key", scopes: ["operator"], allowed: 400 },
    path: () => `/api/v1/bulk/${MATRIX_JOB}/cancel`,
    valid: () => ({ reason }),
  },
  ...refusedMethods("/api/v1/bulk/[jobId]/cancel", ["POST"], () => `/api/v1/bulk/${MATRIX_JOB}/cancel`),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/webhooks",
    guard: { kind: "key", scopes: ["admin"], allowed: 200 },
    path: () => "/api/v1/webhooks",
  },
  ...refusedMethods("/api/v1/webhooks", ["GET"], () => "/api/v1/webhooks"),
  ...(["GET", "PUT", "DELETE"] as const).map((method): RouteRow => ({
    kind: "route",
    method,
    route: "/api/v1/webhooks/[name]",
    // A PUT with `{}` is a 400; a read or delete of a webhook no one made is a 404.
    guard: { kind: "key", scopes: ["admin"], allowed: method === "PUT" ? 400 : 404 },
    path: () => webhook(),
    valid: method === "PUT" ? webhookBody : undefined,
  })),
  ...refusedMethods("/api/v1/webhooks/[name]", ["GET", "PUT", "DELETE"], () => webhook()),
  {
    kind: "route",
    method: "POST",
    route: "/api/v1/webhooks/[name]/test",
    guard: { kind: "key", scopes: ["admin"], allowed: 404 },
    path: () => webhook("/test"),
  },
  ...refusedMethods("/api/v1/webhooks/[name]/test", ["POST"], () => webhook("/test")),
  {
    kind: "route",
    method: "GET",
    route: "/api/v1/webhooks/[name]/deliveries",
    guard: { kind: "key", scopes: ["admin"], allowed: 404 },
    path: () => webhook("/deliveries"),
  },
  ...refusedMethods("/api/v1/webhooks/[name]/deliveries", ["GET"], () => webhook("/deliveries")),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/dependencies/[name]/breaker",
    guard: { kind: "key", scopes: ["admin"], allowed: 200 },
    path: (w) => `/api/v1/dependencies/${w.dependency}/breaker`,
  },
  {
    kind: "route",
    method: "PUT",
    route: "/api/v1/dependencies/[name]/breaker",
    guard: { kind: "key", scopes: ["admin"], allowed: 400 },
    path: (w) => `/api/v1/dependencies/${w.dependency}/breaker`,
    valid: breakerBody,
  },
  ...refusedMethods(
    "/api/v1/dependencies/[name]/breaker",
    ["GET", "PUT"],
    (w) => `/api/v1/dependencies/${w.dependency}/breaker`,
  ),

  // The rules behind the scope checks: own operations, and the human gate (docs/authority.md).
  {
    kind: "rule",
    method: "GET",
    route: "/api/v1/operations",
    what: "the world's tool: whose operations a list shows",
    scopes: READERS,
    path: (w) => `/api/v1/operations?tool=${encodeURIComponent(w.tool)}&limit=200`,
    answer: (key, p) => (reaches(key, p) ? "200 all" : "200 none"),
  },
  {
    kind: "rule",
    method: "POST",
    route: "/api/v1/operations",
    what: "A's idempotency key and args again",
    scopes: AGENT_LANE,
    path: () => "/api/v1/operations",
    body: (w) => ({ tool: w.tool, args: w.planned.args, idempotencyKey: w.planned.idempotencyKey }),
    // A's own replay answers its operation, unchanged; anyone else learns only that the key is taken.
    answer: (_key, p) => (ownsWorld(p) ? "200" : "422 idempotency_key_reused"),
  },
  {
    kind: "rule",
    method: "POST",
    route: "/api/v1/operations/[id]/claim",
    what: "A's operation, leased to A's worker",
    scopes: AGENT_LANE,
    path: (w) => `${op(w.claimed.id)}/claim`,
    body: () => ({ workerId: "matrix-intruder", leaseMs: 60_000 }),
    answer: (_key, p) => (ownsWorld(p) ? "409 lease_held" : "404 not_found"),
  },
  {
    kind: "rule",
    method: "POST",
    route: "/api/v1/operations/[id]/dispatch",
    what: "A's operation in flight, with its fence",
    scopes: AGENT_LANE,
    path: (w) => `${op(w.dispatched.id)}/dispatch`,
    body: (w) => ({ fence: w.dispatched.fence }),
    answer: (_key, p) => (ownsWorld(p) ? "409 in_flight" : "404 not_found"),
  },
  {
    kind: "rule",
    method: "POST",
    route: "/api/v1/operations/[id]/reject",
    what: "A's confirmed operation",
    scopes: SHARED_LANE,
    path: (w) => `${op(w.confirmedId)}/reject`,
    body: () => ({ actor: FORGED_ACTOR, reason }),
    answer: (key, p) => (reaches(key, p) ? "409 not_rejectable" : "404 not_found"),
  },
  {
    kind: "rule",
    method: "POST",
    route: "/api/v1/operations/[id]/approve",
    what: "the human gate, on A's operation that waits for nobody",
    scopes: SHARED_LANE,
    path: (w) => `${op(w.planned.id)}/approve`,
    body: () => ({ actor: FORGED_ACTOR, reason }),
    answer: (key, p) =>
      !reaches(key, p) ? "404 not_found" : isPerson(key) ? "409 not_awaiting_approval" : "403 person_required",
  },
  {
    kind: "rule",
    method: "POST",
    route: "/api/v1/operations/[id]/reconcile",
    what: "approveRetry, on A's operation that is not UNKNOWN",
    scopes: SHARED_LANE,
    path: (w) => `${op(w.planned.id)}/reconcile`,
    body: () => ({ outcome: "not_applied", evidence: { by: "matrix" }, reason, approveRetry: true }),
    // The gate comes before everything else the ledger checks: a non-person learns nothing more.
    answer: (key, p) =>
      !reaches(key, p) ? "404 not_found" : isPerson(key) ? "409 not_unknown" : "403 person_required",
  },

  {
    kind: "rule",
    method: "POST",
    route: "/api/v1/operations/[id]/replay",
    what: "a replay of A's operation that is not over",
    scopes: SHARED_LANE,
    path: (w) => `${op(w.planned.id)}/replay`,
    body: () => ({ reason }),
    // The human gate first: a non-person learns nothing more; a person is told the operation cannot be replayed.
    answer: (key, p) =>
      !reaches(key, p) ? "404 not_found" : isPerson(key) ? "409 not_replayable" : "403 person_required",
  },

  // Console server actions (lib/console/actions/*.ts, "use server").
  ...(
    [
      [
        "createUserAction",
        () => ({ email: "intruder@example.com", name: "Intruder", role: "admin", password: "a long enough password" }),
      ],
      ["changeRoleAction", () => ({ userId: "matrix-unknown-user", role: "admin" })],
      ["disableUserAction", () => ({ userId: "matrix-unknown-user", reason })],
      ["enableUserAction", () => ({ userId: "matrix-unknown-user" })],
      ["resetPasswordAction", () => ({ userId: "matrix-unknown-user", password: "a long enough password" })],
      ["createApiKeyAction", () => ({ name: "intruder", scopes: ["admin"], ownerUserId: "matrix-unknown-user" })],
      ["revokeApiKeyAction", (w: World) => ({ keyId: w.targetKeyId, reason })],
    ] as const
  ).map(([name, valid]): ActionRow => ({
    kind: "action",
    file: "lib/console/actions/admin-actions.ts",
    name,
    role: "admin",
    valid,
  })),
  {
    kind: "action",
    file: "lib/console/actions/contract-actions.ts",
    name: "saveContract",
    role: "admin",
    valid: (w) => ({ tool: w.tool, mode: "edit", body: { ...contractBody(w), expectedVersion: 1 } }),
  },
  {
    kind: "action",
    file: "lib/console/actions/dependency-actions.ts",
    name: "forceDependencyBreaker",
    role: "operator",
    valid: (w) => ({ name: w.dependency, state: "open", reason }),
  },
  {
    kind: "action",
    file: "lib/console/actions/dependency-actions.ts",
    name: "editBreakerSettings",
    role: "admin",
    valid: (w) => ({ name: w.dependency, ...breakerBody() }),
  },
  ...(
    [
      ["saveWebhookAction", () => ({ name: MATRIX_WEBHOOK, ...webhookBody(), reason })],
      ["deleteWebhookAction", () => ({ name: MATRIX_WEBHOOK, expectedVersion: 0, reason })],
      ["sendTestEventAction", () => ({ name: MATRIX_WEBHOOK, reason })],
    ] as const
  ).map(([name, valid]): ActionRow => ({
    kind: "action",
    file: "lib/console/actions/webhook-actions.ts",
    name,
    role: "admin",
    valid,
  })),
  ...(
    [
      ["previewBulkAction", () => ({ action: "reject", filter: { phase: "PLANNED" }, reason })],
      ["runBulkAction", () => ({ previewId: MATRIX_JOB, reason })],
      ["cancelBulkAction", () => ({ jobId: MATRIX_JOB, reason })],
    ] as const
  ).map(([name, valid]): ActionRow => ({
    kind: "action",
    file: "lib/console/actions/bulk-actions.ts",
    name,
    role: "operator",
    valid,
  })),
  {
    kind: "action",
    file: "lib/console/actions/upstream-actions.ts",
    name: "confirmToolDefinitionAction",
    role: "admin",
    valid: () => ({ tool: "matrix__no_such_tool", contractVersion: 1, hash: "0".repeat(64), reason }),
  },
  {
    kind: "action",
    file: "lib/console/actions/replay-actions.ts",
    name: "replayOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.confirmedId, argsText: '{"intruder":true}', reason }),
  },
  {
    kind: "action",
    file: "lib/console/actions/lookup-actions.ts",
    name: "lookupOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.unknown.id }),
  },
  {
    kind: "action",
    file: "lib/console/actions/operation-actions.ts",
    name: "approveOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.awaiting.id, seen: w.awaiting.seen, reason }),
  },
  {
    kind: "action",
    file: "lib/console/actions/operation-actions.ts",
    name: "rejectOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.awaiting.id, seen: w.awaiting.seen, reason }),
  },
  {
    kind: "action",
    file: "lib/console/actions/operation-actions.ts",
    name: "reconcileOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.unknown.id, seen: w.unknown.seen, reason, outcome: "applied", providerId: "prov-intruder" }),
  },
];

/** The row's name in the docs table and in test titles. */
export function rowId(row: MatrixRow): string {
  switch (row.kind) {
    case "route":
      return `${row.method} ${row.route}`;
    case "rule":
      return `${row.method} ${row.route} · ${row.what}`;
    case "action":
      return `${row.file}#${row.name}`;
    default: {
      const never: never = row;
      return never;
    }
  }
}

/** The rows that stand for code (a route method or an action); rule rows are about routes those rows already list. */
export function surfaceRows(): (RouteRow | ActionRow)[] {
  return MATRIX.filter((r): r is RouteRow | ActionRow => r.kind !== "rule");
}

function routeAnswer(guard: Guard, p: Principal): number {
  switch (guard.kind) {
    case "everyone":
      return guard.status;
    case "session": {
      const role = ROLE_OF[p];
      if (!role) return 401; // no session: anonymous, or an API key, which the console does not accept
      return RANK[role] >= RANK[guard.role] ? guard.allowed : 403;
    }
    case "key": {
      const key = KEY_OF[p];
      if (!key) return 401; // no key, a revoked key, or only a console session, which /api/v1 does not accept
      if (!passesScope(key, guard.scopes)) return 403;
      return guard.own && !reaches(key, p) ? 404 : guard.allowed;
    }
    default: {
      const never: never = guard;
      return never;
    }
  }
}

function ruleAnswer(row: RuleRow, p: Principal): string {
  const key = KEY_OF[p];
  if (!key) return "401 unauthorized";
  if (!passesScope(key, row.scopes)) return "403 forbidden";
  return row.answer(key, p);
}

function actionAnswer(role: Role | null, p: Principal): string {
  if (role === null) return ACTION_NOT_EXPOSED;
  const has = ROLE_OF[p];
  if (!has) return ACTION_REFUSED_ANONYMOUS; // a bearer key is not a session
  return RANK[has] >= RANK[role] ? ACTION_ALLOWED : ACTION_REFUSED_ROLE;
}

/** The expected answer: an HTTP status for a route, "status code" for a rule, the ActionResult code for an action. */
export function expected(row: MatrixRow, p: Principal): string {
  switch (row.kind) {
    case "route":
      return String(routeAnswer(row.guard, p));
    case "rule":
      return ruleAnswer(row, p);
    case "action":
      return actionAnswer(row.role, p);
    default: {
      const never: never = row;
      return never;
    }
  }
}

/** Whether the guard lets `p` through (then the spec sends an invalid body, else a valid one). Rule rows: never. */
export function letsThrough(row: MatrixRow, p: Principal): boolean {
  if (row.kind === "rule") return false;
  if (row.kind === "action") return expected(row, p) === ACTION_ALLOWED;
  return row.guard.kind !== "everyone" && expected(row, p) === String(row.guard.allowed);
}
