// A provider outage for the bulk specs: UNKNOWN operations (and operations waiting for a person) seeded straight
// through the ledger's commands, thousands in seconds, as an agent would have left them. Run by bulk-ledger.ts.
import type { Actor } from "@/lib/ledger/actor";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import type { Ledger } from "@/lib/ledger/ledger";
import { inPool } from "@/lib/ledger/in-pool";

export { inPool };

/** The agent the outage happened to: a key id of its own, so its operations are nobody else's. */
export const OUTAGE_AGENT: Actor = {
  type: "api_key",
  id: "e2e-bulk-agent",
  label: "e2e bulk agent",
  scopes: ["agent"],
  person: null,
};

/** `count` operations of `tool` in run `runId`, each left UNKNOWN after a timed-out first attempt; their ids. */
export async function seedUnknowns(
  ledger: Ledger,
  { tool, runId, count, keyPrefix }: { tool: string; runId: string; count: number; keyPrefix: string },
): Promise<string[]> {
  const ids: string[] = [];
  const keys = Array.from({ length: count }, (_, i) => `${keyPrefix}-${i}`);
  await inPool(keys, 16, async (key) => {
    const now = new Date();
    const { operation } = await planOperation(
      ledger,
      {
        tool,
        args: { to: `${key}@example.test` },
        idempotencyKey: key,
        runId,
        claim: { workerId: "w", leaseMs: 3_600_000 },
      },
      OUTAGE_AGENT,
      now,
    );
    const dispatched = await dispatchOperation(ledger, operation.id, { fence: operation.fence }, OUTAGE_AGENT, now);
    if ("refused" in dispatched) throw dispatched.refused;
    await reportOutcome(
      ledger,
      operation.id,
      { fence: operation.fence, result: "unknown", error: { kind: "timeout" } },
      OUTAGE_AGENT,
      now,
    );
    ids.push(operation.id);
  });
  return ids;
}

/** `count` operations of a tool whose contract asks a person first: each waits for approval at once. */
export async function seedWaiting(
  ledger: Ledger,
  { tool, runId, count }: { tool: string; runId: string; count: number },
): Promise<string[]> {
  const ids: string[] = [];
  await inPool(
    Array.from({ length: count }, (_, i) => i),
    16,
    async (i) => {
      const { operation } = await planOperation(ledger, { tool, args: { i }, runId }, OUTAGE_AGENT, new Date());
      ids.push(operation.id);
    },
  );
  return ids;
}
