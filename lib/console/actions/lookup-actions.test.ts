// The Reconcile dialog's lookup action: operator role checked inside, the evidence returned, nothing changed.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { Ledger } from "@/lib/ledger/ledger";
import type * as SessionModule from "@/lib/platform/auth/session";
import type { SessionUser } from "@/lib/platform/auth/session";
import { getOperation } from "@/lib/ledger/reads/operations";
import { at, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";

const session = vi.hoisted(() => {
  // The provider listens on loopback, which outbound requests reach only with private addresses allowed.
  process.env.OPLEDGER_OUTBOUND_ALLOW_PRIVATE = "on";
  return { user: null as SessionUser | null };
});

vi.mock("@/lib/platform/auth/session", async (original) => {
  const { mockedSession } = await import("@/tests/helpers/session-mock");
  return mockedSession(await original<typeof SessionModule>(), session);
});

const { lookupOperationAction } = await import("./lookup-actions");

let t: TestDb;
let provider: Server;
let id: string;
/** How the provider answers the next lookup: with the charge, with an outage, or not at all. */
let answer: "found" | "down" | "silent";

beforeEach(async () => {
  answer = "found";
  provider = createServer((_req, res) => {
    if (answer === "silent") return; // Never answers: the lookup's timeout ends it.
    if (answer === "down") {
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "maintenance" }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "ch_9", status: "succeeded" }));
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  t = await createTestDb();
  (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger = t.ledger;
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", {
    reconcile: {
      method: "lookup",
      urlTemplate: `${base}/charges/{idempotencyKey}`,
      statusField: "status",
      appliedValues: ["succeeded"],
      timeoutMs: 300,
    },
  });
  const lease = await planAndClaim(
    t.ledger,
    { tool: "payments.charge", args: { amount: 1 }, idempotencyKey: "k-9" },
    at(0),
  );
  id = lease.id;
  await dispatch(t.ledger, id, lease.fence, at(1));
  await outcome(t.ledger, id, { fence: lease.fence, result: "unknown" }, at(2));
});

afterEach(async () => {
  delete (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger;
  session.user = null;
  await t.close();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
});

it("returns the provider's evidence to an operator and changes nothing", async () => {
  session.user = { id: "olga-id", email: "olga@example.test", name: "Olga", role: "operator" };
  const result = await lookupOperationAction({ id });
  expect(result).toMatchObject({
    ok: true,
    data: {
      found: { ok: true, status: 200, applied: true, providerId: "ch_9" },
      suggestion: { outcome: "applied", providerId: "ch_9" },
    },
  });
  expect(result.ok && result.data.text).toContain("Provider id: ch_9.");
  expect((await getOperation(t.ledger, id, new Date())).phase).toBe("UNKNOWN");
});

it.each([
  ["answers 503", "down" as const, /answered 503/],
  ["does not answer in time", "silent" as const, /did not answer within 300 ms/],
])(
  "a provider that %s gives no evidence and no suggestion, and the operation stays UNKNOWN",
  async (_, how, reason) => {
    session.user = { id: "olga-id", email: "olga@example.test", name: "Olga", role: "operator" };
    answer = how;
    const before = await getOperation(t.ledger, id, new Date());
    const result = await lookupOperationAction({ id });
    expect(result).toMatchObject({ ok: true, data: { found: { ok: false }, suggestion: null } });
    expect(result.ok && !result.data.found.ok && result.data.found.reason).toMatch(reason);
    const after = await getOperation(t.ledger, id, new Date());
    expect(after).toMatchObject({ phase: "UNKNOWN", evidence: "none", providerId: null, updatedAt: before.updatedAt });
    expect(after.audit).toHaveLength(before.audit.length);
  },
);

it("refuses a viewer and a signed-out visitor, and names an unknown operation", async () => {
  session.user = { id: "vic-id", email: "vic@example.test", name: "Vic", role: "viewer" };
  expect(await lookupOperationAction({ id })).toMatchObject({ ok: false, code: "forbidden" });
  session.user = null;
  expect(await lookupOperationAction({ id })).toMatchObject({ ok: false, code: "unauthenticated" });
  session.user = { id: "olga-id", email: "olga@example.test", name: "Olga", role: "operator" };
  expect(await lookupOperationAction({ id: "nope" })).toMatchObject({ ok: false, code: "not_found" });
  expect(await lookupOperationAction({ id: "" })).toMatchObject({ ok: false, code: "invalid_input" });
});
