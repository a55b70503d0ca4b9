// Breaker settings on a real database: each edit a version with its audit record, stale or concurrent edits refused,
// bounds checked, and the gate using the threshold, the cooldown and the probe count.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { alice, at, bob, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf, dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { breakerSettingsSchema, type BreakerSettingsInput } from "./breaker-settings-schema";
import { breakerSettingsHistory, putBreakerSettings } from "./breaker-settings";
import { getDependency } from "./dependencies";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "stripe" });
});
afterEach(async () => t.close());

const settings = (over: Partial<BreakerSettingsInput> = {}): BreakerSettingsInput => ({
  failureThreshold: 2,
  cooldownMs: 1_000,
  probes: 2,
  reason: "Stripe flaps; open sooner, close later",
  expectedVersion: 0,
  ...over,
});
const row = () => t.db.dependency.findUniqueOrThrow({ where: { name: "stripe" } });
const settingsAudit = () =>
  t.db.auditEvent.findMany({ where: { action: "dependency.settings_changed" }, orderBy: { id: "asc" } });

/** One charge planned, claimed and dispatched; its outcome reported at `done`. */
async function call(key: string, start: number, result: "confirmed" | "failed") {
  const { id, fence } = await planAndClaim(
    t.ledger,
    { tool: "payments.charge", args: { key }, idempotencyKey: key },
    at(start),
  );
  const dispatched = await codeOf(dispatch(t.ledger, id, fence, at(start + 1)));
  if (dispatched !== "resolved") return dispatched;
  const error = result === "failed" ? { httpStatus: 503 } : undefined;
  await outcome(t.ledger, id, { fence, result, ...(error ? { error } : {}) }, at(start + 2));
  return "resolved";
}

describe("putBreakerSettings", () => {
  it("writes version 1, updates the row the gate reads and audits who, why, from and to, in one transaction", async () => {
    const before = await row();
    expect(before).toMatchObject({ failureThreshold: 5, cooldownMs: 30_000, probes: 1, settingsVersion: 0 });
    const { settings: written, changed } = await putBreakerSettings(t.ledger, "stripe", settings(), alice, at(10));
    expect(changed).toBe(true);
    expect(written).toMatchObject({ version: 1, failureThreshold: 2, cooldownMs: 1_000, probes: 2 });
    expect(written.author).toBe(alice.label);
    expect(await row()).toMatchObject({
      failureThreshold: 2,
      cooldownMs: 1_000,
      probes: 2,
      settingsVersion: 1,
      version: before.version + 1,
    });
    const audit = await settingsAudit();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      subjectType: "dependency",
      subjectId: "stripe",
      actorId: alice.id,
      reason: "Stripe flaps; open sooner, close later",
    });
    expect(JSON.parse(audit[0]?.data ?? "{}")).toEqual({
      version: 1,
      previousVersion: 0,
      from: { failureThreshold: 5, cooldownMs: 30_000, probes: 1 },
      to: { failureThreshold: 2, cooldownMs: 1_000, probes: 2 },
    });
  });

  it("keeps every version, newest first, and shows them with the dependency", async () => {
    await putBreakerSettings(t.ledger, "stripe", settings(), alice, at(10));
    await putBreakerSettings(
      t.ledger,
      "stripe",
      settings({ failureThreshold: 9, expectedVersion: 1, reason: "too eager" }),
      bob,
      at(20),
    );
    const history = await breakerSettingsHistory(t.ledger, "stripe");
    expect(history.current).toMatchObject({ version: 2, failureThreshold: 9, author: bob.label });
    expect(history.versions.map((v) => [v.version, v.failureThreshold, v.reason])).toEqual([
      [2, 9, "too eager"],
      [1, 2, "Stripe flaps; open sooner, close later"],
    ]);
    const view = await getDependency(t.ledger, "stripe", at(30));
    expect(view).toMatchObject({ failureThreshold: 9, probes: 2, settingsVersion: 2 });
    expect(view.settingsHistory.map((v) => v.version)).toEqual([2, 1]);
  });

  it("keeps the version and writes nothing for the settings already in force", async () => {
    await putBreakerSettings(t.ledger, "stripe", settings(), alice, at(10));
    const again = await putBreakerSettings(t.ledger, "stripe", settings({ expectedVersion: 1 }), alice, at(20));
    expect(again).toMatchObject({ changed: false, settings: { version: 1 } });
    expect(await settingsAudit()).toHaveLength(1);
    expect(await t.db.dependencySettings.count()).toBe(1);
  });

  it("refuses an edit of a version that is no longer in force (409), changing nothing", async () => {
    await putBreakerSettings(t.ledger, "stripe", settings(), alice, at(10));
    const stale = putBreakerSettings(t.ledger, "stripe", settings({ failureThreshold: 50 }), bob, at(20));
    await expect(stale).rejects.toMatchObject({ code: "write_conflict", status: 409 });
    expect(await row()).toMatchObject({ failureThreshold: 2, settingsVersion: 1 });
    expect(await settingsAudit()).toHaveLength(1);
  });

  it("lets exactly one of two concurrent edits of the same version win; the other is a 409", async () => {
    const results = await Promise.allSettled([
      putBreakerSettings(t.ledger, "stripe", settings({ failureThreshold: 3 }), alice, at(10)),
      putBreakerSettings(t.ledger, "stripe", settings({ failureThreshold: 4 }), bob, at(10)),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: "write_conflict" });
    expect(await t.db.dependencySettings.count()).toBe(1);
    expect((await row()).settingsVersion).toBe(1);
  });

  it("answers not_found for a dependency that does not exist", async () => {
    await expect(putBreakerSettings(t.ledger, "nope", settings(), alice, at(10))).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("the bounds", () => {
  it.each([
    ["failureThreshold", 0],
    ["failureThreshold", 1001],
    ["failureThreshold", 2.5],
    ["cooldownMs", 999],
    ["cooldownMs", 3_600_001],
    ["probes", 0],
    ["probes", 101],
    ["expectedVersion", -1],
  ])("refuses %s = %s with a message for that field", (field, value) => {
    const parsed = breakerSettingsSchema.safeParse({ ...settings(), [field]: value });
    expect(parsed.success).toBe(false);
    expect(Object.keys(parsed.error?.flatten().fieldErrors ?? {})).toEqual([field]);
  });

  it("accepts the edges and refuses a missing reason or an unknown field", () => {
    expect(
      breakerSettingsSchema.safeParse({ ...settings(), failureThreshold: 1000, cooldownMs: 3_600_000, probes: 100 })
        .success,
    ).toBe(true);
    expect(
      breakerSettingsSchema.safeParse({ ...settings(), failureThreshold: 1, cooldownMs: 1_000, probes: 1 }).success,
    ).toBe(true);
    expect(breakerSettingsSchema.safeParse({ ...settings(), reason: " " }).success).toBe(false);
    expect(breakerSettingsSchema.safeParse({ ...settings(), state: "open" }).success).toBe(false);
  });
});

describe("the gate uses the settings", () => {
  it("opens after the edited threshold, not the default", async () => {
    await putBreakerSettings(t.ledger, "stripe", settings(), alice, at(10));
    expect(await call("a", 100, "failed")).toBe("resolved");
    expect((await row()).state).toBe("closed");
    expect(await call("b", 200, "failed")).toBe("resolved");
    expect((await row()).state).toBe("open");
    expect(await call("c", 300, "confirmed")).toBe("breaker_open");
  });

  it("uses an edit made after the breaker was last read (the PostgreSQL store remembers rows)", async () => {
    expect(await call("a", 100, "failed")).toBe("resolved");
    await putBreakerSettings(t.ledger, "stripe", settings(), alice, at(150));
    expect(await call("b", 200, "failed")).toBe("resolved");
    expect(await row()).toMatchObject({ state: "open", consecutiveFailures: 2 });
  });

  it("keeps the default threshold of 5 when nobody edited it", async () => {
    for (const [i, key] of ["a", "b", "c", "d"].entries()) await call(key, 100 * (i + 1), "failed");
    expect((await row()).state).toBe("closed");
    await call("e", 500, "failed");
    expect((await row()).state).toBe("open");
  });

  it("closes only after the edited number of successful probes in a row, and a failed probe reopens it", async () => {
    await putBreakerSettings(t.ledger, "stripe", settings({ probes: 2 }), alice, at(10));
    await call("a", 100, "failed");
    await call("b", 200, "failed");
    expect((await row()).state).toBe("open");
    // The cooldown (1 s) is over: the first probe goes and succeeds; one more is needed.
    expect(await call("p1", 1_500, "confirmed")).toBe("resolved");
    expect(await row()).toMatchObject({ state: "half_open", probeSuccesses: 1, probeInFlight: false });
    // The second probe fails: open again, from that moment, with no probe counted.
    expect(await call("p2", 1_600, "failed")).toBe("resolved");
    expect(await row()).toMatchObject({ state: "open", probeSuccesses: 0 });
    expect(await call("x", 1_700, "confirmed")).toBe("breaker_open");
    // After the cooldown, two good probes in a row close it.
    expect(await call("p3", 3_000, "confirmed")).toBe("resolved");
    expect((await row()).state).toBe("half_open");
    expect(await call("p4", 3_100, "confirmed")).toBe("resolved");
    expect(await row()).toMatchObject({ state: "closed", probeSuccesses: 0, consecutiveFailures: 0 });
  });

  it("lets only one probe out at a time while half-open", async () => {
    await putBreakerSettings(t.ledger, "stripe", settings({ probes: 3 }), alice, at(10));
    await call("a", 100, "failed");
    await call("b", 200, "failed");
    const first = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "q1" }, at(1_500));
    expect(await codeOf(dispatch(t.ledger, first.id, first.fence, at(1_501)))).toBe("resolved");
    const second = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "q2" }, at(1_502));
    expect(await codeOf(dispatch(t.ledger, second.id, second.fence, at(1_503)))).toBe("breaker_open");
  });
});
