// An MCP client's run allowance: `_meta["opledger/runAllowance"]` on a tools/call declares (or replaces) the allowance
// of the gateway's run for this client, as PUT /api/v1/runs/{runId} does (docs/run-allowance.md); the same allowance
// declared again writes nothing.
import { putRunAllowance, runAllowanceBody, sameBounds } from "@/lib/ledger/runs/run-allowances";
import type { GatewayServerContext } from "./call-tool";

export const RUN_ALLOWANCE_META = "opledger/runAllowance";

/** Declares the allowance the call carries, if any; a problem to tell the model when it is malformed. */
export async function declareRunAllowance(
  ctx: Pick<GatewayServerContext, "ledger" | "actor" | "run">,
  value: unknown,
  now: Date,
): Promise<string | null> {
  if (value === undefined) return null;
  const parsed = runAllowanceBody.safeParse(value);
  if (!parsed.success) {
    return `_meta["${RUN_ALLOWANCE_META}"] must be { deadlineAt?: ISO time, maxRetries?: integer >= 0, maxBackoffMs?: integer >= 0 }.`;
  }
  // Clients send the same allowance on every call: only a change is written (and audited).
  const stored = await ctx.ledger.db.runAllowance.findUnique({ where: { runId: ctx.run } });
  if (stored !== null && stored.keyId === ctx.actor.id && sameBounds(stored, parsed.data)) return null;
  await putRunAllowance(ctx.ledger, ctx.run, parsed.data, ctx.actor, now);
  return null;
}
