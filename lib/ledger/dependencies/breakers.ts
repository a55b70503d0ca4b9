// Maps a dependency row to the pure breaker and back, and names the breaker settings.
import type { Dependency } from "@/lib/generated/prisma/client";
import { nextBreaker, type BreakerEvent } from "@/lib/retry-gate/breaker";
import type { Breaker, BreakerConfig, BreakerState } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { LedgerError } from "../errors";
import type { LedgerTx as Tx } from "../store/types";

export function breakerOf(row: Dependency): Breaker {
  return {
    state: row.state as BreakerState,
    consecutiveFailures: row.consecutiveFailures,
    openedAt: row.openedAt?.getTime() ?? null,
    forced: (row.forced as Breaker["forced"]) ?? null,
    forcedReason: row.forcedReason,
    probeInFlight: row.probeInFlight,
  };
}

export function breakerConfigOf(row: Dependency | null): BreakerConfig {
  return { failureThreshold: row?.failureThreshold ?? 5, cooldownMs: row?.cooldownMs ?? 30_000 };
}

export function breakerData(b: Breaker) {
  return {
    state: b.state,
    consecutiveFailures: b.consecutiveFailures,
    openedAt: b.openedAt === null ? null : new Date(b.openedAt),
    forced: b.forced,
    forcedReason: b.forcedReason,
    probeInFlight: b.probeInFlight,
  };
}

export function breakerChanged(a: Breaker, b: Breaker): boolean {
  return JSON.stringify(a) !== JSON.stringify(b);
}

/**
 * Applies an event to a dependency's breaker in the caller's transaction; a state change is audited. Returns the row as
 * it now is.
 */
export async function recordOnBreaker(
  tx: Tx,
  dependency: Dependency | null,
  event: BreakerEvent | null,
  actor: Actor,
  now: Date,
  cause: string,
): Promise<Dependency | null> {
  if (!dependency || !event) return dependency;
  const before = breakerOf(dependency);
  const after = nextBreaker(before, event, breakerConfigOf(dependency), now.getTime());
  if (!breakerChanged(before, after)) return dependency;
  const data = {
    ...breakerData(after),
    version: dependency.version + 1,
    ...(event.type === "failure" ? { lastFailureAt: now } : {}),
  };
  const written = { ...data, updatedAt: now };
  if (!(await tx.updateDependency(dependency.name, dependency.version, written)))
    throw new LedgerError("write_conflict", "The dependency's breaker changed meanwhile.");
  if (before.state !== after.state) {
    await tx.appendAudit([
      {
        subjectType: "dependency",
        subjectId: dependency.name,
        actor,
        action: `dependency.breaker_${after.state}`,
        reason: `${event.type} of ${cause} (${after.consecutiveFailures} consecutive failures)`,
        data: { from: before.state, to: after.state },
        at: now,
      },
    ]);
  }
  // The conditional update matched the version we read, so the row is what we read plus what we wrote.
  return { ...dependency, ...written };
}
