// Pinned MCP tools on a real database, both engines: an admin's confirmation of a changed definition is a new contract
// version with the same rules and the admin's reason, its pin and its audit records in one transaction; a confirmation
// of what the admin no longer sees is refused and changes nothing; a pin of a contract version never changes its hash.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/ledger/actor";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { contractRecorders } from "@/lib/ledger/contracts/contract-recorders";
import { getContract, listContractVersions, putContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError } from "@/lib/ledger/errors";
import { agent, alice, contractFor, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { confirmToolDefinition } from "./confirm-tool-definition";
import { changedTools, pinned, type SeenTool, type ToolDefinition } from "./tool-pins";

const TOOL = "files__read";
const ada: Actor = { type: "user", id: "ada", label: "ada@example.test", role: "admin" };
const reason = "the upstream only reworded the description";

const definition = (description: string): ToolDefinition => ({
  name: "read",
  description,
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  annotations: { readOnlyHint: true },
});
const V1 = definition("Reads a file.");
const V2 = definition("Reads a file, and deletes it.");
const V3 = definition("Deletes a file.");

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, TOOL, "PURE");
});
afterEach(async () => {
  await t.close();
});

const seen = (def: ToolDefinition, contractVersion = 1): SeenTool => ({ tool: TOOL, contractVersion, definition: def });
const look = async (def: ToolDefinition, contractVersion = 1) =>
  (await changedTools(t.ledger, [seen(def, contractVersion)], T0)).has(TOOL);
const pin = () => t.db.toolPin.findUniqueOrThrow({ where: { tool: TOOL } });
const auditOf = (action: string) =>
  t.db.auditEvent.findMany({ where: { subjectType: "contract", subjectId: TOOL, action }, orderBy: { id: "asc" } });
/** Everything a refused confirmation must leave as it was. */
const state = async () => ({
  versions: (await listContractVersions(t.ledger, TOOL)).map((v) => v.version),
  pin: await pin(),
  audit: await t.db.auditEvent.count(),
});
const confirm = (input: { contractVersion: number; hash: string }, actor: Actor = ada) =>
  confirmToolDefinition(t.ledger, TOOL, { ...input, reason }, actor, T0);
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof LedgerError ? error.code : error),
  );

describe("confirming a changed tool definition", () => {
  it("makes version N+1 with the same rules and the admin's reason, pins the definition under it, audited", async () => {
    expect(await look(V1)).toBe(false);
    expect(await look(V2)).toBe(true);
    expect(await look(V2)).toBe(true);
    expect(await auditOf("contract.tool_changed")).toHaveLength(1);

    expect(await confirm({ contractVersion: 1, hash: pinned(V2).hash })).toEqual({ tool: TOOL, version: 2 });

    const [v2, v1] = await listContractVersions(t.ledger, TOOL);
    const { version: _v2, author, createdAt: _c2, ...rules2 } = v2!;
    const { version: _v1, author: _a1, createdAt: _c1, ...rules1 } = v1!;
    expect({ version: v2!.version, author }).toEqual({ version: 2, author: ada.label });
    expect(rules2).toEqual(rules1);
    expect((await getContract(t.ledger, TOOL)).version).toBe(2);
    expect(await pin()).toMatchObject({
      contractVersion: 2,
      hash: pinned(V2).hash,
      definition: pinned(V2).json,
      changedHash: null,
      changedDefinition: null,
    });
    const [updated] = await auditOf("contract.updated");
    const [confirmed] = await auditOf("contract.tool_confirmed");
    expect(updated).toMatchObject({ actorId: ada.id, reason });
    expect(JSON.parse(updated!.data ?? "{}")).toEqual({
      version: 2,
      previousVersion: 1,
      definition: { from: pinned(V1).hash, to: pinned(V2).hash },
    });
    expect(confirmed).toMatchObject({ actorId: ada.id, reason });
    // One transaction: its two records are next to each other in the chain, which stays whole.
    expect(confirmed!.seq).toBe((updated!.seq ?? 0) + 1);
    expect((await verifyAuditChain(t.ledger)).ok).toBe(true);
    // The contract's history names the version's reason.
    const recorders = await contractRecorders(t.ledger, TOOL);
    expect(recorders.get(2)).toMatchObject({ actorId: ada.id, confirmedDefinition: { reason } });
    expect(recorders.get(1)?.confirmedDefinition).toBeNull();

    // The confirmed definition is called under version 2; the old one is now the change.
    expect(await look(V2, 2)).toBe(false);
    expect(await look(V1, 2)).toBe(true);
  });

  it("refuses a definition that changed again since it was shown, and changes nothing", async () => {
    await look(V1);
    await look(V2);
    await look(V3);
    const before = await state();
    expect(await refusal(confirm({ contractVersion: 1, hash: pinned(V2).hash }))).toBe("write_conflict");
    expect(await state()).toEqual(before);
    expect(await confirm({ contractVersion: 1, hash: pinned(V3).hash })).toMatchObject({ version: 2 });
  });

  it("refuses a contract version that moved (another admin confirmed, or the contract was saved) and changes nothing", async () => {
    await look(V1);
    await look(V2);
    await confirm({ contractVersion: 1, hash: pinned(V2).hash });
    await look(V3, 2);
    const before = await state();
    // Another admin confirmed V2 while this one looked at version 1.
    expect(await refusal(confirm({ contractVersion: 1, hash: pinned(V3).hash }))).toBe("contract_conflict");
    expect(await state()).toEqual(before);

    // The contract is saved (a new timeout) before the gateway looked again: the confirmation names version 2.
    await putContract(t.ledger, TOOL, { ...contractFor("PURE"), timeoutMs: 5000 }, alice, T0);
    expect(await refusal(confirm({ contractVersion: 2, hash: pinned(V3).hash }))).toBe("contract_conflict");
    expect((await listContractVersions(t.ledger, TOOL)).map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it("keeps a pending change across a contract save: the pin moves to the new version with its definition", async () => {
    await look(V1);
    await look(V2);
    await putContract(t.ledger, TOOL, { ...contractFor("PURE"), timeoutMs: 5000 }, alice, T0);
    expect(await look(V2, 2)).toBe(true);
    expect(await pin()).toMatchObject({ contractVersion: 2, hash: pinned(V1).hash, changedHash: pinned(V2).hash });
    expect(await look(V1, 2)).toBe(false);
    expect(await confirm({ contractVersion: 2, hash: pinned(V2).hash })).toMatchObject({ version: 3 });
    expect((await getContract(t.ledger, TOOL)).timeoutMs).toBe(5000);
  });

  it.each([
    ["an operator", alice],
    ["an agent key", agent],
  ])("refuses %s, changing nothing", async (_, actor) => {
    await look(V1);
    await look(V2);
    const before = await state();
    expect(await refusal(confirm({ contractVersion: 1, hash: pinned(V2).hash }, actor))).toBe("person_required");
    expect(await state()).toEqual(before);
  });

  it("refuses a tool whose definition has not changed", async () => {
    await look(V1);
    expect(await refusal(confirm({ contractVersion: 1, hash: pinned(V1).hash }))).toBe("not_found");
  });

  it("two admins confirming at once make one new version; the other is refused", async () => {
    await look(V1);
    await look(V2);
    const input = { contractVersion: 1, hash: pinned(V2).hash };
    const outcomes = await Promise.all([refusal(confirm(input)), refusal(confirm(input))]);
    expect(outcomes.filter((o) => o === null)).toHaveLength(1);
    expect(outcomes.filter((o) => o !== null)[0]).toMatch(/^(contract_conflict|write_conflict|not_found)$/);
    expect((await listContractVersions(t.ledger, TOOL)).map((v) => v.version)).toEqual([2, 1]);
    expect(await auditOf("contract.tool_confirmed")).toHaveLength(1);
  });
});

describe("a pin of a contract version never changes its hash", () => {
  it("two first looks at once that see different definitions pin one; the other is the change", async () => {
    const answers = await Promise.all([changedTools(t.ledger, [seen(V1)], T0), changedTools(t.ledger, [seen(V2)], T0)]);
    const { hash, contractVersion } = await pin();
    expect(contractVersion).toBe(1);
    const [pinnedOne, other] = hash === pinned(V1).hash ? [V1, V2] : [V2, V1];
    expect(hash).toBe(pinned(pinnedOne).hash);
    expect(answers.map((a) => a.has(TOOL))).toEqual(pinnedOne === V1 ? [false, true] : [true, false]);
    expect(await auditOf("contract.tool_pinned")).toHaveLength(1);
    expect(await look(other)).toBe(true);
    expect((await pin()).hash).toBe(hash);
  });

  it("a look that read the contract's older version neither moves the pin back nor repins", async () => {
    await look(V1);
    await look(V2);
    await confirm({ contractVersion: 1, hash: pinned(V2).hash });
    expect(await look(V1, 1)).toBe(true);
    expect(await pin()).toMatchObject({ contractVersion: 2, hash: pinned(V2).hash, changedHash: pinned(V1).hash });
  });
});
