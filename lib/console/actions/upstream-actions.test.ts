// The confirmation of a changed MCP tool's definition from the console: the admin role checked inside the action (a
// viewer and an operator are refused, nothing written), a reason required with a field message, and a new contract
// version for an admin who gives one.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Ledger } from "@/lib/ledger/ledger";
import type * as SessionModule from "@/lib/platform/auth/session";
import type { SessionUser } from "@/lib/platform/auth/session";
import { personWithRole } from "@/tests/helpers/session-mock";
import { changedTools, pinned, type ToolDefinition } from "@/lib/ledger/commands/tool-pins";
import { T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";

const session = vi.hoisted(() => ({ user: null as SessionUser | null }));

vi.mock("@/lib/platform/auth/session", async (original) => {
  const { mockedSession } = await import("@/tests/helpers/session-mock");
  return mockedSession(await original<typeof SessionModule>(), session);
});
// revalidatePath needs a Next request; the action's effect on the database is what is tested here.
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const { confirmToolDefinitionAction } = await import("./upstream-actions");

const TOOL = "files__read";
const definition = (description: string): ToolDefinition => ({
  name: "read",
  description,
  inputSchema: { type: "object" },
  annotations: null,
});

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger = t.ledger;
  await withContract(t.ledger, TOOL, "PURE");
  for (const description of ["Reads a file.", "Reads a file, and deletes it."]) {
    await changedTools(t.ledger, [{ tool: TOOL, contractVersion: 1, definition: definition(description) }], T0);
  }
});
afterEach(async () => {
  delete (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger;
  session.user = null;
  await t.close();
});

const person = personWithRole;
const input = {
  tool: TOOL,
  contractVersion: 1,
  hash: pinned(definition("Reads a file, and deletes it.")).hash,
  reason: "reworded upstream",
};
const versions = () => t.db.contractVersion.count({ where: { tool: TOOL } });

describe("confirmToolDefinitionAction", () => {
  it.each([
    ["nobody signed in", null, "unauthenticated"],
    ["a viewer", "viewer", "forbidden"],
    ["an operator", "operator", "forbidden"],
  ] as const)("refuses %s and writes nothing", async (_, role, code) => {
    session.user = role ? person(role) : null;
    expect(await confirmToolDefinitionAction(input)).toMatchObject({ ok: false, code });
    expect(await versions()).toBe(1);
  });

  it("asks an admin for a reason with a field message, writing nothing", async () => {
    session.user = person("admin");
    const result = await confirmToolDefinitionAction({ ...input, reason: "  " });
    expect(result).toMatchObject({ ok: false, code: "invalid_input", errors: { reason: [expect.any(String)] } });
    expect(await versions()).toBe(1);
  });

  it("makes a new contract version for an admin who gives a reason, and refuses the same confirmation again", async () => {
    session.user = person("admin");
    expect(await confirmToolDefinitionAction(input)).toEqual({ ok: true, data: { tool: TOOL, version: 2 } });
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { action: "contract.tool_confirmed" } });
    expect(audit).toMatchObject({ actorType: "user", actorId: "admin-1", reason: "reworded upstream" });
    expect(await confirmToolDefinitionAction(input)).toMatchObject({ ok: false, code: "not_found" });
    expect(await versions()).toBe(2);
  });
});
