// The retry gate deciding for deliveries (no rule of our own), the answers classified like a provider's, and the
// retry spike's floor.
import { describe, expect, it } from "vitest";
import { isSpike } from "@/lib/ledger/reads/retry-spikes";
import { afterFailedDelivery, reportedError } from "./delivery-gate";
import { eventOfAudit } from "./event-types";

const policy = { maxAttempts: 4, backoff: { baseMs: 1000, maxMs: 8000 } };
const t0 = new Date("2026-12-02T00:00:00Z");

describe("afterFailedDelivery", () => {
  it("retries a 5xx, a 429 and a timeout after the gate's jittered backoff, growing with the attempts", () => {
    for (const reported of [{ httpStatus: 500 }, { httpStatus: 429 }, { kind: "timeout" }]) {
      const first = afterFailedDelivery(reported, 1, t0, t0, policy, () => 1);
      const third = afterFailedDelivery(reported, 3, t0, t0, policy, () => 1);
      expect("retryAt" in first && first.retryAt.getTime() - t0.getTime()).toBe(1000);
      expect("retryAt" in third && third.retryAt.getTime() - t0.getTime()).toBe(4000);
    }
    const none = afterFailedDelivery({ httpStatus: 503 }, 2, t0, t0, policy, () => 0);
    expect("retryAt" in none && none.retryAt.getTime()).toBe(t0.getTime());
  });

  it("gives up on a 4xx at once, and on a 5xx once the attempts are spent", () => {
    expect(afterFailedDelivery({ httpStatus: 404 }, 1, t0, t0, policy, Math.random)).toHaveProperty("giveUp");
    expect(afterFailedDelivery({ kind: "forbidden" }, 1, t0, t0, policy, Math.random)).toHaveProperty("giveUp");
    expect(afterFailedDelivery({ httpStatus: 500 }, 4, t0, t0, policy, Math.random)).toHaveProperty("giveUp");
  });
});

describe("reportedError", () => {
  it("takes a 2xx as delivered and names everything else as a worker would", () => {
    expect(
      reportedError({ outcome: "answered", status: 204, contentType: null, body: "", truncated: false }),
    ).toBeNull();
    expect(
      reportedError({ outcome: "answered", status: 302, contentType: null, body: "", truncated: false }),
    ).toMatchObject({
      httpStatus: 302,
    });
    expect(reportedError({ outcome: "failed", kind: "unreachable", detail: "", reason: "r" })).toMatchObject({
      kind: "connection_refused",
    });
    expect(reportedError({ outcome: "refused", rule: "private_address", reason: "r" })).toMatchObject({
      kind: "forbidden",
    });
  });
});

describe("eventOfAudit", () => {
  it("maps the ledger's records to the events and ignores the rest", () => {
    expect(eventOfAudit({ subjectType: "operation", action: "operation.outcome_unknown", toPhase: "UNKNOWN" })).toBe(
      "operation.unknown",
    );
    expect(eventOfAudit({ subjectType: "operation", action: "operation.confirmed", toPhase: "CONFIRMED" })).toBeNull();
    expect(
      eventOfAudit({ subjectType: "dependency", action: "dependency.breaker_half_open", toPhase: null }),
    ).toBeNull();
    expect(eventOfAudit({ subjectType: "bulk", action: "bulk.finished", toPhase: null })).toBe("bulk.finished");
    expect(eventOfAudit({ subjectType: "contract", action: "bulk.finished", toPhase: null })).toBeNull();
  });
});

describe("isSpike", () => {
  it("needs five times the hour's average and at least five retries", () => {
    expect(isSpike(1, 0)).toBe(false);
    expect(isSpike(4, 0)).toBe(false);
    expect(isSpike(5, 0)).toBe(true);
    expect(isSpike(9, 2)).toBe(false);
    expect(isSpike(10, 2)).toBe(true);
  });
});
