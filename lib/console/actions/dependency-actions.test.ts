// The breaker settings action: the admin role checked inside (a viewer and an operator are refused, nothing written),
// field messages for bad input, and a stale version refused.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Ledger } from "@/lib/ledger/ledger";
import type * as SessionModule from "@/lib/platform/auth/session";
import type { SessionUser } from "@/lib/platform/auth/session";
import { personWithRole } from "@/tests/helpers/session-mock";
import { withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";

const session = vi.hoisted(() => ({ user: null as SessionUser | null }));

vi.mock("@/lib/platform/auth/session", async (original) => {
  const { mockedSession } = await import("@/tests/helpers/session-mock");
  return mockedSession(await original<typeof SessionModule>(), session);
});
// revalidatePath needs a Next request; the action's effect on the database is what is tested here.
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const { editBreakerSettings } = await import("./dependency-actions");

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger = t.ledger;
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "stripe" });
});
afterEach(async () => {
  delete (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger;
  session.user = null;
  await t.close();
});

const person = personWithRole;
const input = {
  name: "stripe",
  failureThreshold: 3,
  cooldownMs: 10_000,
  probes: 2,
  reason: "fail fast during the incident",
  expectedVersion: 0,
};
const written = () => t.db.dependencySettings.count();

describe("editBreakerSettings", () => {
  it.each([
    ["nobody signed in", null, "unauthenticated"],
    ["a viewer", "viewer", "forbidden"],
    ["an operator", "operator", "forbidden"],
  ] as const)("refuses %s and writes nothing", async (_, role, code) => {
    session.user = role ? person(role) : null;
    expect(await editBreakerSettings(input)).toMatchObject({ ok: false, code });
    expect(await written()).toBe(0);
    expect((await t.db.dependency.findUniqueOrThrow({ where: { name: "stripe" } })).failureThreshold).toBe(5);
  });

  it("lets an admin write a version, audited as that person", async () => {
    session.user = person("admin");
    expect(await editBreakerSettings(input)).toMatchObject({
      ok: true,
      data: { changed: true, settings: { version: 1 } },
    });
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { action: "dependency.settings_changed" } });
    expect(audit).toMatchObject({ actorType: "user", reason: "fail fast during the incident" });
  });

  it("answers field messages for values out of bounds, writing nothing", async () => {
    session.user = person("admin");
    const result = await editBreakerSettings({
      ...input,
      failureThreshold: 0,
      cooldownMs: 500,
      probes: 101,
      reason: "",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe("invalid_input");
    expect(Object.keys(result.errors ?? {}).sort()).toEqual(["cooldownMs", "failureThreshold", "probes", "reason"]);
    expect(await written()).toBe(0);
  });

  it("refuses an edit of a version that is no longer in force", async () => {
    session.user = person("admin");
    await editBreakerSettings(input);
    expect(await editBreakerSettings({ ...input, failureThreshold: 9 })).toMatchObject({
      ok: false,
      code: "write_conflict",
    });
    expect(await written()).toBe(1);
  });
});
