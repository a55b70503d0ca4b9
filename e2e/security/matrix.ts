// The role matrix: for every API route + method and every console server action, what each principal gets back. The
// spec and docs/security.md both come from this one table.
export const PRINCIPALS = [
  "anonymous",
  "viewer",
  "operator",
  "admin",
  "agent key",
  "operator key",
  "admin key",
  "revoked key",
] as const;
export type Principal = (typeof PRINCIPALS)[number];

type Role = "viewer" | "operator" | "admin";
type Scope = "agent" | "operator" | "admin";

const ROLE_OF: Partial<Record<Principal, Role>> = { viewer: "viewer", operator: "operator", admin: "admin" };
const SCOPE_OF: Partial<Record<Principal, Scope>> = {
  "agent key": "agent",
  "operator key": "operator",
  "admin key": "admin",
};
const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** What the spec seeds before the matrix runs: the subjects a request would change if its guard let it through. */
export interface World {
  tool: string;
  dependency: string;
  /** PLANNED, never claimed. */
  plannedId: string;
  /** PLANNED and claimed by the seed's worker. */
  claimed: { id: string; fence: number };
  /** DISPATCHED by the seed's worker. */
  dispatched: { id: string; fence: number };
  unknown: { id: string; seen: Seen };
  awaiting: { id: string; seen: Seen };
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
 * of `scopes` (any key when empty; an admin key always). `allowed` is the answer for those let through.
 */
export type Guard =
  | { kind: "everyone"; status: number }
  | { kind: "session"; role: Role; allowed: number }
  | { kind: "key"; scopes: Scope[]; allowed: number };

export interface RouteRow {
  kind: "route";
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
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

export interface ActionRow {
  kind: "action";
  file: string;
  name: string;
  /** null: no page imports the action, so it is not in the build's server-reference manifest and cannot be called. */
  role: Role | null;
  /** Valid input, sent by every principal the role refuses; principals it lets through send `{}` (invalid_input). */
  valid: (w: World) => unknown;
}

export type MatrixRow = RouteRow | ActionRow;

/** Answers of a route outside its guard, and the results of a server action. */
export const ACTION_REFUSED_ANONYMOUS = "unauthenticated";
export const ACTION_REFUSED_ROLE = "forbidden";
export const ACTION_ALLOWED = "invalid_input";
export const ACTION_NOT_EXPOSED = "not exposed";

const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The methods a v1 route refuses with a 405 problem document (lib/api/problem.ts otherMethods), for everyone. */
function refusedMethods(route: string, served: RouteRow["method"][], path: (w: World) => string): RouteRow[] {
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
  scopes: Scope[],
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

const catchAll = "/api/v1/[[...path]]";

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
  consoleGet("/api/console/operations/[id]", (w) => `/api/console/operations/${w.plannedId}`),
  consoleGet("/api/console/queue", () => "/api/console/queue?phase=UNKNOWN"),

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

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/contracts",
    guard: { kind: "key", scopes: [], allowed: 200 },
    path: () => "/api/v1/contracts",
  },
  ...refusedMethods("/api/v1/contracts", ["GET"], () => "/api/v1/contracts"),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/contracts/[tool]",
    guard: { kind: "key", scopes: [], allowed: 200 },
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

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/metrics",
    guard: { kind: "key", scopes: [], allowed: 200 },
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
    ["operator"],
    (w) => w.awaiting.id,
    () => ({ actor: "mallory@example.com", reason }),
  ),
  ...v1Operation(
    "claim",
    ["agent"],
    (w) => w.plannedId,
    () => ({ workerId: "matrix-intruder", leaseMs: 60_000 }),
  ),
  ...v1Operation(
    "dispatch",
    ["agent"],
    (w) => w.claimed.id,
    (w) => ({ fence: w.claimed.fence }),
  ),
  ...v1Operation(
    "heartbeat",
    ["agent"],
    (w) => w.claimed.id,
    (w) => ({ fence: w.claimed.fence, leaseMs: 3_600_000 }),
  ),
  ...v1Operation(
    "outcome",
    ["agent"],
    (w) => w.dispatched.id,
    (w) => ({ fence: w.dispatched.fence, result: "confirmed", providerId: "prov-intruder" }),
  ),
  ...v1Operation(
    "reconcile",
    ["agent", "operator"],
    (w) => w.unknown.id,
    () => ({ outcome: "applied", providerId: "prov-intruder", evidence: { by: "intruder" }, reason }),
  ),
  ...v1Operation(
    "reject",
    ["operator"],
    (w) => w.awaiting.id,
    () => ({ actor: "mallory@example.com", reason }),
  ),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/operations/[id]",
    guard: { kind: "key", scopes: [], allowed: 200 },
    path: (w) => op(w.plannedId),
  },
  ...refusedMethods("/api/v1/operations/[id]", ["GET"], (w) => op(w.plannedId)),

  {
    kind: "route",
    method: "GET",
    route: "/api/v1/operations",
    guard: { kind: "key", scopes: [], allowed: 200 },
    path: () => "/api/v1/operations",
  },
  {
    kind: "route",
    method: "POST",
    route: "/api/v1/operations",
    guard: { kind: "key", scopes: ["agent"], allowed: 400 },
    path: () => "/api/v1/operations",
    valid: (w) => ({ tool: w.tool, args: { intruder: true }, idempotencyKey: "matrix-intruder" }),
  },
  ...refusedMethods("/api/v1/operations", ["GET", "POST"], () => "/api/v1/operations"),

  // Console server actions (lib/actions/*.ts, "use server").
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
      ["createApiKeyAction", () => ({ name: "intruder", scopes: ["admin"] })],
      ["revokeApiKeyAction", (w: World) => ({ keyId: w.targetKeyId, reason })],
    ] as const
  ).map(([name, valid]): ActionRow => ({
    kind: "action",
    file: "lib/actions/admin-actions.ts",
    name,
    role: "admin",
    valid,
  })),
  {
    kind: "action",
    file: "lib/actions/contract-actions.ts",
    name: "saveContract",
    role: "admin",
    valid: (w) => ({ tool: w.tool, mode: "edit", body: { ...contractBody(w), expectedVersion: 1 } }),
  },
  {
    kind: "action",
    file: "lib/actions/dependency-actions.ts",
    name: "forceDependencyBreaker",
    role: "operator",
    valid: (w) => ({ name: w.dependency, state: "open", reason }),
  },
  {
    kind: "action",
    file: "lib/actions/lookup-actions.ts",
    name: "lookupOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.unknown.id }),
  },
  {
    kind: "action",
    file: "lib/actions/operation-actions.ts",
    name: "approveOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.awaiting.id, seen: w.awaiting.seen, reason }),
  },
  {
    kind: "action",
    file: "lib/actions/operation-actions.ts",
    name: "rejectOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.awaiting.id, seen: w.awaiting.seen, reason }),
  },
  {
    kind: "action",
    file: "lib/actions/operation-actions.ts",
    name: "reconcileOperationAction",
    role: "operator",
    valid: (w) => ({ id: w.unknown.id, seen: w.unknown.seen, reason, outcome: "applied", providerId: "prov-intruder" }),
  },
];

/** The row's name in the docs table and in test titles. */
export function rowId(row: MatrixRow): string {
  return row.kind === "route" ? `${row.method} ${row.route}` : `${row.file}#${row.name}`;
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
      const scope = SCOPE_OF[p];
      if (!scope) return 401; // no key, a revoked key, or only a console session, which /api/v1 does not accept
      return scope === "admin" || guard.scopes.length === 0 || guard.scopes.includes(scope) ? guard.allowed : 403;
    }
    default: {
      const never: never = guard;
      return never;
    }
  }
}

function actionAnswer(role: Role | null, p: Principal): string {
  if (role === null) return ACTION_NOT_EXPOSED;
  const has = ROLE_OF[p];
  if (!has) return ACTION_REFUSED_ANONYMOUS; // a bearer key is not a session
  return RANK[has] >= RANK[role] ? ACTION_ALLOWED : ACTION_REFUSED_ROLE;
}

/** The expected answer: an HTTP status for a route, the ActionResult code for a server action. */
export function expected(row: MatrixRow, p: Principal): string {
  return row.kind === "route" ? String(routeAnswer(row.guard, p)) : actionAnswer(row.role, p);
}

/** Whether the guard lets `p` through (then the spec sends an invalid body, else a valid one). */
export function letsThrough(row: MatrixRow, p: Principal): boolean {
  if (row.kind === "action") return expected(row, p) === ACTION_ALLOWED;
  return row.guard.kind !== "everyone" && expected(row, p) === String(row.guard.allowed);
}
