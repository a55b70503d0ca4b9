// Maps a dependency row to the pure breaker and back, and names the breaker settings.
import type { Dependency } from "@/lib/platform/generated/prisma/client";
import {
  DEFAULT_BREAKER_SETTINGS,
  nextBreaker,
  type BreakerEvent,
  type ProbedBreaker,
  type TunedBreakerConfig,
} from "@/lib/retry-gate/breaker";
import type { Breaker, BreakerState } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { LedgerError } from "../errors";
import type { LedgerTx as Tx } from "../store/types";

export function breakerOf(row: Dependency): ProbedBreaker {
  return {
    name: row.name,
    state: row.state as BreakerState,
    consecutiveFailures: row.consecutiveFailures,
    openedAt: row.openedAt?.getTime() ?? null,
    forced: (row.forced as Breaker["forced"]) ?? null,
    forcedReason: row.forcedReason,
    probeInFlight: row.probeInFlight,
    probeSuccesses: row.probeSuccesses,
  };
}

/** The settings the gate uses for a dependency: its row's (an admin may have edited them), else the defaults. */
export function breakerConfigOf(row: Dependency | null): Required<TunedBreakerConfig> {
  return {
    failureThreshold: row?.failureThreshold ?? DEFAULT_BREAKER_SETTINGS.failureThreshold,
    cooldownMs: row?.cooldownMs ?? DEFAULT_BREAKER_SETTINGS.cooldownMs,
    probes: row?.probes ?? DEFAULT_BREAKER_SETTINGS.probes,
  };
}

export function breakerData(b: ProbedBreaker) {
  return {
    state: b.state,
    consecutiveFailures: b.consecutiveFailures,
    openedAt: b.openedAt === null ? null : new Date(b.openedAt),
    forced: b.forced,
    forcedReason: b.forcedReason,
    probeInFlight: b.probeInFlight,
    probeSuccesses: b.probeSuccesses ?? 0,
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
