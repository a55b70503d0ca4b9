// Seeds a believable ledger through the real ledger service (so every row has its audit trail): what a newcomer sees
// first.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";
import type { ContractBody } from "@/lib/ledger/contracts/contract-schema";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { demoProviderUrl } from "./config";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { claimLease } from "@/lib/ledger/commands/lease";
import { reportOutcome, type OutcomeInput } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import { demoContracts } from "./contracts";
import { demoMcpContracts } from "./mcp/demo-mcp-contracts";

/** The key id the seeded history was planned under; the demo agent's key is handed its operations at each start. */
export const DEMO_SEED_KEY_ID = "demo-agent-seed";

const DEMO_AGENT: Actor = {
  type: "api_key",
  id: DEMO_SEED_KEY_ID,
  label: "demo-agent (seed)",
  scopes: ["agent"],
  person: null,
};

type Script = { tool: string; args: Record<string, unknown>; outcomes: Omit<OutcomeInput, "fence">[] };

const CUSTOMERS = ["cus_ada", "cus_grace", "cus_linus", "cus_barbara", "cus_ken", "cus_margaret"];

function scripts(): Script[] {
  const list: Script[] = [];
  CUSTOMERS.forEach((customer, i) => {
    list.push({
      tool: "payments.charge",
      args: { customer, amountCents: 1200 + i * 350, currency: "EUR" },
      outcomes: [{ result: "confirmed", providerId: `ch_${1000 + i}` }],
    });
    list.push({ tool: "docs.search", args: { query: `refund policy ${i}` }, outcomes: [{ result: "confirmed" }] });
  });
  list.push(
    {
      tool: "payments.charge",
      args: { customer: "cus_dennis", amountCents: 4999, currency: "EUR" },
      outcomes: [{ result: "unknown", error: { kind: "timeout", message: "no response after 30 s" } }],
    },
    {
      tool: "payments.charge",
      args: { customer: "cus_frances", amountCents: 2500, currency: "EUR" },
      outcomes: [
        { result: "failed", error: { httpStatus: 503, message: "upstream unavailable" } },
        { result: "confirmed", providerId: "ch_2001" },
      ],
    },
    {
      tool: "payments.charge",
      args: { customer: "cus_john", amountCents: 100, currency: "EUR" },
      outcomes: [{ result: "failed", error: { httpStatus: 402, message: "card declined" } }],
    },
    {
      tool: "email.send",
      args: { to: "grace@example.com", template: "receipt" },
      outcomes: [{ result: "confirmed", providerId: "msg_1" }],
    },
    {
      tool: "email.send",
      args: { to: "ada@example.com", template: "refund-confirmation" },
      outcomes: [{ result: "failed", error: { httpStatus: 503, message: "mail relay unavailable" } }],
    },
    {
      tool: "email.send",
      args: { to: "linus@example.com", template: "password-reset" },
      outcomes: [{ result: "failed", error: { kind: "connection_reset" } }],
    },
    {
      tool: "deploy.release",
      args: { service: "checkout", version: "2026.11.30-1" },
      outcomes: [{ result: "confirmed", providerId: "dep_77" }],
    },
    {
      tool: "deploy.release",
      args: { service: "search", version: "2026.11.30-2" },
      outcomes: [{ result: "failed", error: { httpStatus: 504, message: "gateway timeout" } }],
    },
    {
      tool: "crm.update",
      args: { contact: "ct_42", stage: "customer" },
      outcomes: [{ result: "unknown", error: { kind: "ECONNRESET" } }],
    },
    { tool: "refunds.issue", args: { charge: "ch_1003", amountCents: 1500 }, outcomes: [] },
  );
  return list;
}

const DEMO_AUTHOR: Actor = { type: "system", id: "system", label: "demo seed" };

/** The HTTP demo tools' contracts and the desk's, which the MCP gateway lists as `desk__<tool>`. */
function everyDemoContract(providerUrl: string): Record<string, ContractBody> {
  return { ...demoContracts(providerUrl), ...demoMcpContracts() };
}

/**
 * Writes the demo contracts for the providers at `providerUrl`: a missing one is created, one the demo wrote itself
 * is brought up to date (a new version only if it changed, e.g. another provider port), and one a person edited
 * since is left as they made it.
 */
export async function ensureDemoContracts(
  ledger: Ledger,
  providerUrl: string,
  now: Date,
): Promise<{ written: string[]; keptEdited: string[] }> {
  const written: string[] = [];
  const keptEdited: string[] = [];
  for (const [tool, body] of Object.entries(everyDemoContract(providerUrl))) {
    const head = await ledger.db.toolContract.findUnique({ where: { tool } });
    const current = head
      ? await ledger.db.contractVersion.findUnique({
          where: { tool_version: { tool, version: head.currentVersion } },
          select: { author: true },
        })
      : null;
    if (current && current.author !== DEMO_AUTHOR.label) {
      keptEdited.push(tool);
      continue;
    }
    const result = await putContract(ledger, tool, body, DEMO_AUTHOR, now);
    if (result.changed) written.push(tool);
  }
  return { written, keptEdited };
}

/** Loads the demo contracts and, on an empty ledger, a few dozen operations in every interesting phase. */
export async function seedDemo(
  ledger: Ledger,
  now: Date,
  providerUrl: string = demoProviderUrl(),
): Promise<{ contracts: number; operations: number }> {
  const contracts = Object.keys(everyDemoContract(providerUrl)).length;
  await ensureDemoContracts(ledger, providerUrl, now);
  if ((await ledger.db.operation.count()) > 0) return { contracts, operations: 0 };
  let operations = 0;
  let clock = now.getTime() - 60 * 60 * 1000;
  const tick = (ms: number): Date => new Date((clock += ms));
  for (const [i, script] of scripts().entries()) {
    const { operation } = await planOperation(
      ledger,
      { ...script, idempotencyKey: `demo-${i}`, runId: `run_${Math.floor(i / 4)}`, agentId: "demo-agent" },
      DEMO_AGENT,
      tick(40_000),
    );
    operations++;
    if (operation.phase !== "PLANNED") continue;
    const { fence } = await claimLease(
      ledger,
      operation.id,
      { workerId: `worker-${i % 3}`, leaseMs: 30_000 },
      DEMO_AGENT,
      tick(5),
    );
    for (const outcome of script.outcomes) {
      const dispatched = await dispatchOperation(ledger, operation.id, { fence }, DEMO_AGENT, tick(10)).catch(
        () => null,
      );
      if (!dispatched || "refused" in dispatched) break;
      const after = await reportOutcome(ledger, operation.id, { ...outcome, fence }, DEMO_AGENT, tick(300), () => 0.5);
      if (after.decision.retryAfterMs) tick(after.decision.retryAfterMs);
    }
  }
  return { contracts, operations };
}
