// Auto-reconcile: the sweep looks up UNKNOWN operations whose contract allows it and records a definite answer as a
// reconciliation.
import type { OutboundOptions } from "@/lib/services/outbound/send";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Operation } from "@/lib/platform/generated/prisma/client";
import type { EffectClass } from "@/lib/retry-gate/types";
import { SYSTEM_ACTOR, type Actor } from "../actor";
import { reconcileSchema } from "@/lib/ledger/contracts/contract-schema";
import { LedgerError } from "../errors";
import { loadContext } from "../reads/operation-context";

import { reconcileOperation } from "./reconcile";
import {
  lookupEffect,
  reconcileSuggestion,
  type LookupEvidence,
  type ReconcileSettings,
} from "@/lib/ledger/outbound/provider-lookup";
import { isWriteConflict } from "../store/types";
import { killPoint } from "@/lib/testing/kill-point";
import { inPool } from "../in-pool";
import { LEDGER } from "@/lib/platform/telemetry/attributes";
import { rootSpan, touchedOperation } from "@/lib/platform/telemetry/root-span";

/** The system, named for what it did, so the audit trail says a lookup and not a person reconciled. */
export const AUTO_RECONCILER: Actor = { ...SYSTEM_ACTOR, label: "auto-reconcile (provider lookup)" };

/** Only these classes may be settled without a person: their contract promises a durable record to look up. */
const AUTO_CLASSES: EffectClass[] = ["REPLAYABLE", "IDEMPOTENT"];

/**
 * How a lookup is done is a fact about the provider today, not a rule the operation was planned under: the current
 * contract version's settings are used, so an admin who fixes a wrong lookup URL also unblocks the waiting operations.
 */
export async function currentLookupSettings(ledger: Ledger, tools?: string[]): Promise<Map<string, ReconcileSettings>> {
  const heads = await ledger.db.toolContract.findMany({
    where: tools ? { tool: { in: tools } } : {},
    select: { tool: true, currentVersion: true },
  });
  if (heads.length === 0) return new Map();
  const rows = await ledger.db.contractVersion.findMany({
    where: { OR: heads.map((h) => ({ tool: h.tool, version: h.currentVersion })), reconcile: { not: null } },
    select: { tool: true, reconcile: true },
  });
  const settings = new Map<string, ReconcileSettings>();
  for (const row of rows) {
    const parsed = reconcileSchema.safeParse(row.reconcile ? JSON.parse(row.reconcile) : null);
    if (parsed.success) settings.set(row.tool, parsed.data);
  }
  return settings;
}

/** Runs the lookup of one operation, for a person about to reconcile it; changes nothing. */
export async function lookupForOperation(
  ledger: Ledger,
  id: string,
  now: Date,
  outbound: OutboundOptions = {},
): Promise<LookupEvidence> {
  const { op, contract } = await loadContext(ledger.store, id);
  const current = (await currentLookupSettings(ledger, [op.tool])).get(op.tool);
  const own = contract.reconcile ? reconcileSchema.safeParse(JSON.parse(contract.reconcile)) : null;
  const settings = current ?? (own?.success ? own.data : null);
  return lookupEffect(settings, { idempotencyKey: op.idempotencyKey, providerId: op.providerId }, now, outbound);
}

/**
 * Spaces out lookups that failed or said nothing, per operation, so a provider that is down is not asked every tick.
 */
export class LookupBackoff {
  private readonly entries = new Map<string, { failures: number; notBefore: number }>();

  constructor(
    private readonly baseMs = 5_000,
    private readonly maxMs = 5 * 60_000,
  ) {}

  due(id: string, now: Date): boolean {
    const entry = this.entries.get(id);
    return !entry || entry.notBefore <= now.getTime();
  }

  failed(id: string, now: Date): void {
    const failures = (this.entries.get(id)?.failures ?? 0) + 1;
    const delay = Math.min(this.maxMs, this.baseMs * 2 ** (failures - 1));
    this.entries.set(id, { failures, notBefore: now.getTime() + delay });
  }

  /** Not before `at`: a definite answer that may not be acted on yet is not worth asking for again until then. */
  waitUntil(id: string, at: Date): void {
    this.entries.set(id, { failures: this.entries.get(id)?.failures ?? 0, notBefore: at.getTime() });
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  /** Drops entries of operations no longer waiting, so the map does not grow for the life of the process. */
  keepOnly(ids: Set<string>): void {
    for (const id of this.entries.keys()) if (!ids.has(id)) this.entries.delete(id);
  }
}

export interface AutoReconcileOptions {
  /** At most this many lookups per call (default 20). */
  limit?: number;
  /** Lookups in flight at once (default 4). */
  concurrency?: number;
  /** How lookups go out (tests: private addresses, a resolver); lib/services/outbound's defaults otherwise. */
  outbound?: OutboundOptions;
  backoff?: LookupBackoff;
  /**
   * A "not applied" answer is acted on only once the operation has been UNKNOWN this long (default 10 s): a request
   * from a worker that lost its lease may still be on its way to the provider. "Applied" is acted on at once.
   */
  notAppliedGraceMs?: number;
}

export interface AutoReconcileReport {
  looked: number;
  applied: number;
  notApplied: number;
  /** The provider answered, but not in a way that proves anything: left for a person. */
  undecided: number;
  /** The lookup failed or timed out: left as it was, asked again later. */
  failed: number;
}

/**
 * Looks up UNKNOWN REPLAYABLE and IDEMPOTENT operations whose current contract has `reconcile.auto` with the lookup
 * method, oldest first, and reconciles each one the provider gives a definite answer for, as the system. A failed or
 * undecided lookup leaves the operation alone. Safe to run from several servers: reconcileOperation refuses an
 * operation that is no longer UNKNOWN. A run with lookups to make is the root span `opledger auto_reconcile` (a run
 * with nothing due opens none), and each reconciliation its command span inside it.
 */
export async function autoReconcile(
  ledger: Ledger,
  now: Date,
  options: AutoReconcileOptions = {},
): Promise<AutoReconcileReport> {
  const report: AutoReconcileReport = { looked: 0, applied: 0, notApplied: 0, undecided: 0, failed: 0 };
  const limit = options.limit ?? 20;
  const backoff = options.backoff;
  const settings = new Map(
    [...(await currentLookupSettings(ledger))].filter(
      ([, s]) => s.method === "lookup" && s.auto === true && s.urlTemplate,
    ),
  );
  if (settings.size === 0 || limit <= 0) return report;

  const candidates = await ledger.db.operation.findMany({
    where: { phase: "UNKNOWN", tool: { in: [...settings.keys()] }, effect: { in: AUTO_CLASSES } },
    select: { id: true, tool: true, idempotencyKey: true, providerId: true, updatedAt: true },
    orderBy: { id: "asc" },
    take: limit * 5,
  });
  backoff?.keepOnly(new Set(candidates.map((c) => c.id)));
  const due = candidates.filter((c) => !backoff || backoff.due(c.id, now)).slice(0, limit);
  if (due.length === 0) return report;
  return rootSpan("opledger auto_reconcile", {}, async (span) => {
    await lookUpAll(ledger, due, settings, now, options, report);
    span.setAttributes({
      [LEDGER.lookups]: report.looked,
      [LEDGER.lookupsApplied]: report.applied,
      [LEDGER.lookupsNotApplied]: report.notApplied,
      [LEDGER.lookupsUndecided]: report.undecided,
      [LEDGER.lookupsFailed]: report.failed,
    });
    return report;
  });
}

type Candidate = Pick<Operation, "id" | "tool" | "idempotencyKey" | "providerId" | "updatedAt">;

/** Looks up each due operation and reconciles those with a definite answer, counting into the report. */
async function lookUpAll(
  ledger: Ledger,
  due: Candidate[],
  settings: Map<string, ReconcileSettings>,
  now: Date,
  options: AutoReconcileOptions,
  report: AutoReconcileReport,
): Promise<void> {
  const graceMs = options.notAppliedGraceMs ?? 10_000;
  const backoff = options.backoff;
  await inPool(due, options.concurrency ?? 4, async (op) => {
    const evidence = await lookupEffect(settings.get(op.tool) ?? null, op, now, options.outbound);
    killPoint("auto_reconcile_lookup", op.tool);
    report.looked++;
    const suggestion = reconcileSuggestion(evidence);
    if (!suggestion) {
      if (evidence.ok) report.undecided++;
      else report.failed++;
      backoff?.failed(op.id, now);
      return;
    }
    const graceEnds = op.updatedAt.getTime() + graceMs;
    if (suggestion.outcome === "not_applied" && now.getTime() < graceEnds) {
      backoff?.waitUntil(op.id, new Date(graceEnds));
      return;
    }
    try {
      await reconcileOperation(
        ledger,
        op.id,
        {
          outcome: suggestion.outcome,
          ...(suggestion.outcome === "applied" && suggestion.providerId ? { providerId: suggestion.providerId } : {}),
          evidence,
          reason: evidence.ok ? `provider lookup: ${evidence.verdict}` : undefined,
        },
        AUTO_RECONCILER,
        now,
      );
      backoff?.forget(op.id);
      touchedOperation(op.id);
      if (suggestion.outcome === "applied") report.applied++;
      else report.notApplied++;
    } catch (error) {
      // A person or another server settled it first.
      if (error instanceof LedgerError || isWriteConflict(error)) return;
      throw error;
    }
  });
}
