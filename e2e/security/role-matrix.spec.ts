// Role matrix: every API route and console server action, called over HTTP by each principal, answers as
// docs/security.md says, and refused calls change nothing.
import { expect, test } from "@playwright/test";
import {
  ACTION_NOT_EXPOSED,
  expected,
  letsThrough,
  MATRIX,
  PRINCIPALS,
  rowId,
  type ActionRow,
  type RouteRow,
  type World,
} from "./matrix";
import { documentedMatrix, MATRIX_BEGIN, MATRIX_END, renderMatrixTable, SECURITY_DOC } from "./matrix-table";
import { expectUnchanged, snapshotLedger } from "./ledger-snapshot";
import { allPrincipals, seedWorld, worldSubjects, type PrincipalClient } from "./principals";
import { callAction, exposedActions, manifestPath, type ExposedAction } from "./server-actions";
import { routeHandlers, serverActions } from "./surface";

test("the matrix lists every route handler and every server action the code has, and nothing else", () => {
  const inCode = [...routeHandlers(), ...serverActions()].sort();
  const inMatrix = MATRIX.map(rowId).sort();
  expect(new Set(inMatrix).size, "a row is listed twice").toBe(inMatrix.length);
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
  // Every refusal our code writes is a problem document; next-auth's redirects are its own.
  if (status >= 400 && !type.startsWith("application/problem+json"))
    return `${status} with ${type || "no content type"}`;
  return String(status);
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

test("every principal gets the matrix's answer from every route and action, and the refused calls change nothing", async ({
  playwright,
  browser,
  request,
}) => {
  test.setTimeout(240_000);
  const world = await seedWorld(request);
  const principals = await allPrincipals(playwright, browser);
  try {
    const admin = principals.get("admin")!;
    const scope = { ...worldSubjects(world), actorIds: [...principals.values()].map((p) => p.actorId) };
    const before = await snapshotLedger(request, admin.request, scope);
    const exposed = exposedActions();
    const mismatches: string[] = [];
    let calls = 0;
    for (const row of MATRIX) {
      for (const name of PRINCIPALS) {
        const p = principals.get(name)!;
        const got =
          row.kind === "route" ? await routeAnswer(row, p, world) : await actionAnswer(row, p, world, exposed);
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
