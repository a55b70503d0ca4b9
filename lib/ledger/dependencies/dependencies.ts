// Dependencies for the console: each breaker as operators read it, with recent failures, and an operator's override of
// it.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Dependency } from "@/lib/platform/generated/prisma/client";
import { breakerAllowsDispatch, effectiveBreakerState, nextBreaker, type BreakerEvent } from "@/lib/retry-gate/breaker";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { BreakerState } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { breakerChanged, breakerConfigOf, breakerData, breakerOf } from "./breakers";
import { LedgerError } from "../errors";
import { recentSettingsVersions, type BreakerSettingsVersion } from "./breaker-settings";
import { WriteConflict } from "../store/types";
import { withWriteRetry } from "../write-retry";

/** What an operator asks of a breaker: pin it open, pin it closed, or hand it back to the failure counter. */
export type BreakerOverride = "open" | "closed" | "auto";

export const RECENT_FAILURE_WINDOW_MS = 60 * 60_000;
const LAST_FAILURES_SHOWN = 5;
/** The attempt results that count against a dependency: a definite failure or a lost outcome. */
const FAILED_RESULTS = ["failed", "unknown"];

export interface RecentFailure {
  operationId: string;
  tool: string;
  attempt: number;
  result: string;
  errorKind: string | null;
  httpStatus: number | null;
  at: string;
}

export interface DependencyView {
  name: string;
  /** The state the gate acts on now: an override, or "open" read as half-open once the cooldown is over. */
  state: BreakerState;
  /** The stored state, before the cooldown is taken into account. */
  storedState: BreakerState;
  forced: "open" | "closed" | null;
  forcedReason: string | null;
  /** Who pinned the breaker and when, from the audit trail; null when it is not pinned. */
  forcedBy: {
    actorType: string;
    actorId: string;
    onBehalfOf: string | null;
    actorLabel: string | null;
    at: string;
  } | null;
  consecutiveFailures: number;
  failureThreshold: number;
  cooldownMs: number;
  /** Half-open: successful probes in a row needed to close, and how many have succeeded so far. */
  probes: number;
  probeSuccesses: number;
  /** The breaker settings version in force (0: the defaults, never edited). */
  settingsVersion: number;
  /** The newest settings versions, newest first. */
  settingsHistory: BreakerSettingsVersion[];
  openedAt: string | null;
  lastFailureAt: string | null;
  probeInFlight: boolean;
  /** While it refuses calls: when it lets a probe through (null when it does not, or while forced open). */
  nextTryAt: string | null;
  /** Tools whose current contract version names this dependency. */
  tools: string[];
  /** Failed or unknown attempts of those tools' operations within RECENT_FAILURE_WINDOW_MS. */
  recentFailures: number;
  lastFailures: RecentFailure[];
  updatedAt: string;
}

function dependencyView(
  row: Dependency,
  now: Date,
  tools: string[],
  recentFailures: number,
  lastFailures: RecentFailure[],
  forcedBy: DependencyView["forcedBy"],
  settingsHistory: BreakerSettingsVersion[],
): DependencyView {
  const breaker = breakerOf(row);
  const verdict = breakerAllowsDispatch(breaker, breakerConfigOf(row), now.getTime());
  return {
    name: row.name,
    state: effectiveBreakerState(breaker, breakerConfigOf(row), now.getTime()),
    storedState: breaker.state,
    forced: breaker.forced,
    forcedReason: breaker.forcedReason,
    forcedBy: breaker.forced === null ? null : forcedBy,
    consecutiveFailures: row.consecutiveFailures,
    failureThreshold: row.failureThreshold,
    cooldownMs: row.cooldownMs,
    probes: row.probes,
    probeSuccesses: row.probeSuccesses,
    settingsVersion: row.settingsVersion,
    settingsHistory,
    openedAt: row.openedAt?.toISOString() ?? null,
    lastFailureAt: row.lastFailureAt?.toISOString() ?? null,
    probeInFlight: row.probeInFlight,
    nextTryAt: verdict.allowed || verdict.nextTryAt === null ? null : new Date(verdict.nextTryAt).toISOString(),
    tools,
    recentFailures,
    lastFailures,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The (tool, version) pairs of every contract version that names a dependency, so attempts can be traced to it. */
async function contractVersionsByDependency(
  ledger: Ledger,
  names: string[],
): Promise<Map<string, { tool: string; version: number }[]>> {
  const rows = await ledger.db.contractVersion.findMany({
    where: { dependency: { in: names } },
    select: { tool: true, version: true, dependency: true },
  });
  const out = new Map<string, { tool: string; version: number }[]>();
  for (const row of rows) {
    if (row.dependency === null) continue;
    const list = out.get(row.dependency) ?? [];
    list.push({ tool: row.tool, version: row.version });
    out.set(row.dependency, list);
  }
  return out;
}

/** Tools whose current version names each dependency (an older version that named it does not count). */
async function currentToolsByDependency(ledger: Ledger): Promise<Map<string, string[]>> {
  const heads = await ledger.db.toolContract.findMany({ select: { tool: true, currentVersion: true } });
  if (heads.length === 0) return new Map();
  const rows = await ledger.db.contractVersion.findMany({
    where: { OR: heads.map((h) => ({ tool: h.tool, version: h.currentVersion })), dependency: { not: null } },
    select: { tool: true, dependency: true },
    orderBy: { tool: "asc" },
  });
  const out = new Map<string, string[]>();
  for (const row of rows) {
    if (row.dependency === null) continue;
    out.set(row.dependency, [...(out.get(row.dependency) ?? []), row.tool]);
  }
  return out;
}

/**
 * Every dependency with its breaker as the gate sees it now, and the failed or unknown attempts of the
 * operations planned under contract versions that name it (any version, so an edit does not hide history).
 */
/** Every dependency's name, for the contract form's suggestions. */
export async function dependencyNames(ledger: Ledger): Promise<string[]> {
  const rows = await ledger.db.dependency.findMany({ select: { name: true }, orderBy: { name: "asc" } });
  return rows.map((row) => row.name);
}

export async function listDependencies(ledger: Ledger, now: Date): Promise<DependencyView[]> {
  return viewsOf(ledger, await ledger.db.dependency.findMany({ orderBy: { name: "asc" } }), now);
}

export async function getDependency(ledger: Ledger, name: string, now: Date): Promise<DependencyView> {
  const row = await ledger.db.dependency.findUnique({ where: { name } });
  const [view] = row ? await viewsOf(ledger, [row], now) : [];
  if (!view) throw new LedgerError("not_found", `There is no dependency ${name}.`);
  return view;
}

async function viewsOf(ledger: Ledger, rows: Dependency[], now: Date): Promise<DependencyView[]> {
  if (rows.length === 0) return [];
  const names = rows.map((r) => r.name);
  const [versions, tools, settings] = await Promise.all([
    contractVersionsByDependency(ledger, names),
    currentToolsByDependency(ledger),
    recentSettingsVersions(ledger, names),
  ]);
  const since = new Date(now.getTime() - RECENT_FAILURE_WINDOW_MS);
  return Promise.all(
    rows.map(async (row) => {
      const forcedBy = row.forced === null ? null : await lastOverride(ledger, row.name);
      const pairs = versions.get(row.name) ?? [];
      const history = settings.get(row.name) ?? [];
      if (pairs.length === 0) return dependencyView(row, now, tools.get(row.name) ?? [], 0, [], forcedBy, history);
      const where = {
        result: { in: FAILED_RESULTS },
        finishedAt: { gte: since, lte: now },
        operation: { OR: pairs.map((p) => ({ tool: p.tool, contractVersion: p.version })) },
      };
      const [recent, last] = await Promise.all([
        ledger.db.attempt.count({ where }),
        ledger.db.attempt.findMany({
          where,
          orderBy: { finishedAt: "desc" },
          take: LAST_FAILURES_SHOWN,
          select: {
            operationId: true,
            number: true,
            result: true,
            errorKind: true,
            httpStatus: true,
            finishedAt: true,
            operation: { select: { tool: true } },
          },
        }),
      ]);
      const lastFailures = last.map((a): RecentFailure => ({
        operationId: a.operationId,
        tool: a.operation.tool,
        attempt: a.number,
        result: a.result,
        errorKind: a.errorKind,
        httpStatus: a.httpStatus,
        at: (a.finishedAt ?? now).toISOString(),
      }));
      return dependencyView(row, now, tools.get(row.name) ?? [], recent, lastFailures, forcedBy, history);
    }),
  );
}

async function lastOverride(ledger: Ledger, name: string): Promise<DependencyView["forcedBy"]> {
  const event = await ledger.db.auditEvent.findFirst({
    where: {
      subjectType: "dependency",
      subjectId: name,
      action: { in: ["dependency.forced_open", "dependency.forced_closed"] },
    },
    orderBy: { id: "desc" },
    select: { actorType: true, actorId: true, onBehalfOf: true, actorLabel: true, createdAt: true },
  });
  return event
    ? {
        actorType: event.actorType,
        actorId: event.actorId,
        onBehalfOf: event.onBehalfOf,
        actorLabel: event.actorLabel,
        at: event.createdAt.toISOString(),
      }
    : null;
}

function eventOf(state: BreakerOverride, reason: string): BreakerEvent {
  switch (state) {
    case "open":
      return { type: "force_open", reason };
    case "closed":
      return { type: "force_close", reason };
    case "auto":
      return { type: "release" };
    default:
      return assertNever(state, "breaker override");
  }
}

function actionOf(state: BreakerOverride): string {
  switch (state) {
    case "open":
      return "dependency.forced_open";
    case "closed":
      return "dependency.forced_closed";
    case "auto":
      return "dependency.released";
    default:
      return assertNever(state, "breaker override");
  }
}

export interface ForceBreakerResult {
  dependency: DependencyView;
  /**
   * False when the breaker already was so (same override and reason, or "auto" on one nobody pinned): nothing was
   * written.
   */
  changed: boolean;
}

/**
 * An operator pins a dependency's breaker open or closed, or hands it back to the failure counter. The
 * pure breaker decides the new state; the row is written only if nobody changed it since it was read,
 * and the audit record (with the reason) is written in the same transaction.
 */
export async function forceBreaker(
  ledger: Ledger,
  name: string,
  input: { state: BreakerOverride; reason: string },
  actor: Actor,
  now: Date,
): Promise<ForceBreakerResult> {
  const reason = input.reason.trim();
  if (reason.length === 0) {
    throw new LedgerError("invalid_body", "Say why the breaker is being changed.", {
      errors: { reason: ["a reason is required"] },
    });
  }
  // Through the ledger's store, as the commands' own breaker events are: one path writes dependency rows.
  const changed = await withWriteRetry(() =>
    ledger.store.transaction(async (tx) => {
      const row = await tx.dependency(name);
      if (!row) throw new LedgerError("not_found", `There is no dependency ${name}.`);
      const config = breakerConfigOf(row);
      const before = breakerOf(row);
      // Releasing a breaker nobody pinned would reset its failure count behind the counter's back.
      if (input.state === "auto" && before.forced === null) return false;
      const after = nextBreaker(before, eventOf(input.state, reason), config, now.getTime());
      if (!breakerChanged(before, after)) return false;
      const written = { ...breakerData(after), version: row.version + 1, updatedAt: now };
      if (!(await tx.updateDependency(name, row.version, written))) {
        throw new WriteConflict(`dependency ${name} changed meanwhile`);
      }
      const from = effectiveBreakerState(before, config, now.getTime());
      const to = effectiveBreakerState(after, config, now.getTime());
      await tx.appendAudit([
        {
          subjectType: "dependency",
          subjectId: name,
          actor,
          action: actionOf(input.state),
          reason,
          data: { from, to, forcedBefore: before.forced, forced: after.forced },
          at: now,
        },
      ]);
      return true;
    }),
  );
  return { dependency: await getDependency(ledger, name, now), changed };
}
