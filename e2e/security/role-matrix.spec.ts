// Role matrix: every API route and console server action, called over HTTP by each principal, answers as
// docs/security.md says, and so do the authority rules behind the door (own operations, the human gate); no call
// changes anything.
import { expect, test } from "@playwright/test";
import {
  ACTION_NOT_EXPOSED,
  expected,
  letsThrough,
  MATRIX,
  PRINCIPALS,
  rowId,
  surfaceRows,
  WORLD_PLANNER,
  type ActionRow,
  type RouteRow,
  type RuleRow,
  type World,
} from "./matrix";
import { documentedMatrix, MATRIX_BEGIN, MATRIX_END, renderMatrixTable, SECURITY_DOC } from "./matrix-table";
import { expectUnchanged, snapshotLedger } from "./ledger-snapshot";
import { allPrincipals, seedWorld, worldSubjects, type PrincipalClient } from "./principals";
import { callAction, exposedActions, manifestPath, type ExposedAction } from "./server-actions";
import { routeHandlers, serverActions } from "./surface";

test("the matrix lists every route handler and every server action the code has, and nothing else", () => {
  const inCode = [...routeHandlers(), ...serverActions()].sort();
  const inMatrix = surfaceRows().map(rowId).sort();
  expect(new Set(MATRIX.map(rowId)).size, "a row is listed twice").toBe(MATRIX.length);
  const rules = MATRIX.filter((r): r is RuleRow => r.kind === "rule");
  expect(
    rules.map((r) => `${r.method} ${r.route}`).filter((r) => !inCode.includes(r)),
    "a rule row names a route method the code does not have",
  ).toEqual([]);
  expect(
    {
      missingFromMatrix: inCode.filter((r) => !inMatrix.includes(r)),
      notInCode: inMatrix.filter((r) => !inCode.includes(r)),
    },
    "add a row to e2e/security/matrix.ts for every new route method or server action (and remove rows for deleted ones)",
  ).toEqual({ missingFromMatrix: [], notInCode: [] });
});

test("docs/security.md's table is the matrix", () => {
  const documented = documentedMatrix();
  const table = [...documented].map(([id, cells]) => [id, ...PRINCIPALS.map((p) => cells.get(p))]);
  const wanted = MATRIX.map((row) => [rowId(row), ...PRINCIPALS.map((p) => expected(row, p))]);
  expect(
    table,
    `paste this between ${MATRIX_BEGIN} and ${MATRIX_END} in ${SECURITY_DOC}:\n\n${renderMatrixTable()}\n`,
  ).toEqual(wanted);
  for (const cells of documented.values()) expect([...cells.keys()]).toEqual([...PRINCIPALS]);
});

test("the build exposes exactly the server actions the matrix says can be called", () => {
  const exposed = exposedActions();
  const actions = MATRIX.filter((r): r is ActionRow => r.kind === "action");
  for (const row of actions) {
    expect(exposed.has(rowId(row)), `${rowId(row)} in ${manifestPath()}`).toBe(row.role !== null);
  }
  for (const id of exposed.keys()) expect(actions.map(rowId), `${id} is callable but not in the matrix`).toContain(id);
});

async function routeAnswer(row: RouteRow, p: PrincipalClient, w: World): Promise<string> {
  const body = row.method === "GET" ? undefined : letsThrough(row, p.name) ? {} : row.valid?.(w);
  const response = await p.request.fetch(row.path(w), {
    method: row.method,
    headers: { ...p.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { data: Buffer.from(JSON.stringify(body)) }),
    failOnStatusCode: false,
    maxRedirects: 0,
  });
  const status = response.status();
  const type = response.headers()["content-type"] ?? "";
  // Every refusal our code writes is a problem document; next-auth's redirects are its own, and so are the MCP
  // transport's JSON-RPC errors once the key is let through.
  const protocolAnswer = row.route === "/mcp" && type.startsWith("application/json");
  if (status >= 400 && !type.startsWith("application/problem+json") && !protocolAnswer)
    return `${status} with ${type || "no content type"}`;
  return String(status);
}

/**
 * A rule row's answer: "status code" for a problem document, the status for a success, and for a list how many of the
 * world's operations it shows ("all" or "none").
 */
async function ruleAnswer(row: RuleRow, p: PrincipalClient, w: World): Promise<string> {
  const body = row.body?.(w);
  const response = await p.request.fetch(row.path(w), {
    method: row.method,
    headers: { ...p.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { data: Buffer.from(JSON.stringify(body)) }),
    failOnStatusCode: false,
    maxRedirects: 0,
  });
  const status = response.status();
  const type = response.headers()["content-type"] ?? "";
  const text = await response.text();
  if (status >= 400) {
    if (!type.startsWith("application/problem+json")) return `${status} with ${type || "no content type"}`;
    const problem = JSON.parse(text) as { code?: string; operationId?: string };
    // Another key's operation stays unnamed: the answer must not give its id away.
    if (problem.operationId !== undefined && p.name !== WORLD_PLANNER)
      return `${status} ${problem.code} naming the operation`;
    return `${status} ${problem.code}`;
  }
  const items = (JSON.parse(text) as { items?: unknown[] }).items;
  if (!Array.isArray(items)) return String(status);
  if (items.length === 0) return `${status} none`;
  return items.length === w.toolOperations ? `${status} all` : `${status} ${items.length} of ${w.toolOperations}`;
}

async function actionAnswer(
  row: ActionRow,
  p: PrincipalClient,
  w: World,
  exposed: Map<string, ExposedAction>,
): Promise<string> {
  const action = exposed.get(rowId(row));
  if (!action) return ACTION_NOT_EXPOSED;
  const input = letsThrough(row, p.name) ? {} : row.valid(w);
  const answer = await callAction(p.request, action, [input], p.headers);
  const result = answer.result as { ok?: unknown; code?: unknown } | undefined;
  if (answer.status !== 200 || typeof result?.ok !== "boolean")
    return `HTTP ${answer.status}: ${answer.text.slice(0, 200)}`;
  return result.ok ? "ok (the action ran)" : String(result.code);
}

test("every principal gets the matrix's answer from every route, rule and action, and no call changes anything", async ({
  playwright,
  browser,
  request,
}) => {
  test.setTimeout(360_000);
  const principals = await allPrincipals(playwright, browser);
  try {
    // Every operation of the world is agent key A's own; agent key B acts on operations it does not own.
    const world = await seedWorld(request, principals.get(WORLD_PLANNER)!.key);
    const admin = principals.get("admin")!;
    const scope = { ...worldSubjects(world), actorIds: [...principals.values()].flatMap((p) => p.actorIds) };
    const before = await snapshotLedger(request, admin.request, scope);
    const exposed = exposedActions();
    const mismatches: string[] = [];
    let calls = 0;
    for (const row of MATRIX) {
      for (const name of PRINCIPALS) {
        const p = principals.get(name)!;
        const got =
          row.kind === "route"
            ? await routeAnswer(row, p, world)
            : row.kind === "rule"
              ? await ruleAnswer(row, p, world)
              : await actionAnswer(row, p, world, exposed);
        calls += 1;
        if (got !== expected(row, name))
          mismatches.push(`${rowId(row)} as ${name}: expected ${expected(row, name)}, got ${got}`);
      }
    }
    console.log(`[security] role matrix: ${MATRIX.length} rows x ${PRINCIPALS.length} principals = ${calls} calls`);
    expect(mismatches).toEqual([]);
    expectUnchanged(before, await snapshotLedger(request, admin.request, scope));
  } finally {
    await Promise.all([...principals.values()].map((p) => p.dispose()));
  }
});
