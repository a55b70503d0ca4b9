// Agents writing through the ledger under trouble (a lock held by another process, a database server crashing) that
// remember exactly what the ledger acknowledged, and the check that all of it is in the database afterwards.
import { expect } from "vitest";
import type { Ledger } from "@/lib/ledger/ledger";
import { claimLease } from "@/lib/ledger/commands/lease";
import { planOperation } from "@/lib/ledger/commands/plan";
import { LedgerError } from "@/lib/ledger/errors";
import { agent, at } from "./ledger-fixtures";
import { dispatch, outcome } from "./lifecycle";

/** The acknowledged steps of an operation's lifecycle, in order. */
const STEPS = ["PLANNED", "CLAIMED", "DISPATCHED", "CONFIRMED"] as const;
export type Step = (typeof STEPS)[number];

/** What the ledger acknowledged per idempotency key, and how each refused call failed. */
export interface Acknowledged {
  acknowledged: Map<string, { id: string; step: Step }>;
  refusals: string[];
  /** Operations confirmed before `until` resolved. */
  confirmedBeforeStop: number;
}

export function nothingAcknowledged(): Acknowledged {
  return { acknowledged: new Map(), refusals: [], confirmedBeforeStop: 0 };
}

/**
 * One lane of an agent on the tool payments.charge: plan, claim, dispatch, confirm, again and again, until `until`
 * resolves (and at least three times); a failed call abandons that operation. `onAck` hears every acknowledged step.
 */
export async function lane(
  ledger: Ledger,
  name: string,
  until: Promise<void>,
  into: Acknowledged,
  onAck: () => void = () => undefined,
): Promise<void> {
  let stop = false;
  void until.then(() => (stop = true));
  for (let n = 0; !stop || n < 3; n++) {
    // Synchronous SQLite calls resolve as microtasks only: give the event loop a turn to notice the release.
    await new Promise((resolve) => setImmediate(resolve));
    const key = `${name}-${n}`;
    const now = at(n * 10);
    const acked = (id: string, step: Step): void => {
      into.acknowledged.set(key, { id, step });
      onAck();
    };
    try {
      const { operation } = await planOperation(
        ledger,
        { tool: "payments.charge", args: { n }, idempotencyKey: key },
        agent,
        now,
      );
      acked(operation.id, "PLANNED");
      const lease = await claimLease(ledger, operation.id, { workerId: name, leaseMs: 60_000 }, agent, now);
      acked(operation.id, "CLAIMED");
      await dispatch(ledger, operation.id, lease.fence, now);
      acked(operation.id, "DISPATCHED");
      await outcome(ledger, operation.id, { fence: lease.fence, result: "confirmed", providerId: `ch_${key}` }, now);
      acked(operation.id, "CONFIRMED");
      if (!stop) into.confirmedBeforeStop++;
    } catch (error) {
      // A refusal must be the ledger's own typed error, never a raw driver or Prisma error.
      into.refusals.push(error instanceof LedgerError ? `${error.code} ${error.status}` : `untyped: ${String(error)}`);
    }
  }
}

/** The audit actions an operation acknowledged at `step` has recorded, in order. */
export function auditActionsUpTo(step: Step): string[] {
  const actions = ["operation.planned", "operation.lease_claimed", "operation.dispatched", "operation.confirmed"];
  return actions.slice(0, STEPS.indexOf(step) + 1);
}

/** The step a row shows (phase and fence tell them apart), or its phase when it is none of them. */
function stepOf(row: { phase: string; fence: number }): string {
  if (row.phase === "PLANNED") return row.fence === 0 ? "PLANNED" : "CLAIMED";
  return row.phase;
}

/**
 * Every acknowledged step is in the database. `exactly`: nothing a refused call tried is either (a refusal wrote
 * nothing); otherwise (a crash: a write may commit and its answer be lost) a row may be one step further than
 * acknowledged, or exist unacknowledged.
 */
export async function expectNoLostWrite(ledger: Ledger, done: Acknowledged, exactly = true): Promise<void> {
  const rows = await ledger.db.operation.findMany({
    select: { id: true, idempotencyKey: true, phase: true, fence: true },
  });
  const byKey = new Map(rows.map((row) => [row.idempotencyKey, row]));
  if (exactly) expect([...byKey.keys()].sort()).toEqual([...done.acknowledged.keys()].sort());
  for (const [key, { id, step }] of done.acknowledged) {
    const row = byKey.get(key);
    expect(row?.id, `${key} acknowledged as ${step}`).toBe(id);
    const found = stepOf(row!);
    if (exactly) expect(found, `${key} acknowledged as ${step}`).toBe(step);
    else
      expect(STEPS.indexOf(found as Step), `${key} acknowledged as ${step}, found ${found}`).toBeGreaterThanOrEqual(
        STEPS.indexOf(step),
      );
  }
}
