// Pinned tools (docs/mcp.md, "Pinned tools"): a contracted MCP tool is called only while its upstream describes it as
// it was when a person classified it. The first time the gateway sees a contracted tool it pins the definition,
// audited; a definition that differs later is recorded once (audited, which is the webhook event `tool.changed`) and
// keeps the tool unlisted and uncalled until an admin confirms it (confirm-tool-definition.ts). A pin changes its
// definition only there, with a new contract version: the pin of a contract version never changes its hash.
import type { ToolPin } from "@/lib/platform/generated/prisma/client";
import type { AuditInput } from "@/lib/ledger/audit/append";
import { auditedTransaction, type AuditedTx } from "@/lib/ledger/audit/audited-transaction";
import type { Ledger } from "@/lib/ledger/ledger";
import { WriteConflict } from "@/lib/ledger/store/types";
import { SYSTEM_ACTOR } from "../actor";
import { canonicalJson, sha256 } from "../canonical-json";

/** What a person classified: the tool's name, description, input schema and hints, as the upstream gave them. */
export interface ToolDefinition {
  name: string;
  description: string | null;
  inputSchema: unknown;
  annotations: unknown;
}

/** A contracted tool as the upstream describes it now. */
export interface SeenTool {
  /** The gateway name, `<upstream>__<tool>`. */
  tool: string;
  contractVersion: number;
  definition: ToolDefinition;
}

/** The definition as it is pinned: canonical JSON and its sha256. */
export function pinned(definition: ToolDefinition): { json: string; hash: string } {
  const json = canonicalJson(definition);
  return { json, hash: sha256(json) };
}

/** The pins of these tools, by tool. */
export async function toolPins(ledger: Ledger, tools?: readonly string[]): Promise<Map<string, ToolPin>> {
  const rows = await ledger.db.toolPin.findMany({ where: tools ? { tool: { in: [...tools] } } : {} });
  return new Map(rows.map((row) => [row.tool, row]));
}

/**
 * The tools among `seen` whose upstream definition differs from the pinned one. Pins a tool that has none, moves a pin
 * to its contract's new version, and records a new difference once.
 */
export async function changedTools(ledger: Ledger, seen: readonly SeenTool[], now: Date): Promise<Set<string>> {
  let pins = await toolPins(
    ledger,
    seen.map((s) => s.tool),
  );
  const writes = seen.filter((s) => {
    const pin = pins.get(s.tool);
    const { hash } = pinned(s.definition);
    return !pin || pin.contractVersion < s.contractVersion || (pin.hash !== hash && pin.changedHash !== hash);
  });
  if (writes.length > 0) pins = new Map([...pins, ...(await recordPins(ledger, writes, now))]);
  return new Set(seen.filter((s) => pins.get(s.tool)?.hash !== pinned(s.definition).hash).map((s) => s.tool));
}

/** Writes the pins of `seen` (audited) and answers them as they are now. */
async function recordPins(ledger: Ledger, seen: readonly SeenTool[], now: Date): Promise<Map<string, ToolPin>> {
  return auditedTransaction(ledger, async (tx, audit) => {
    for (const s of seen) {
      const { json, hash } = pinned(s.definition);
      const pin = await tx.toolPin.findUnique({ where: { tool: s.tool } });
      if (!pin) {
        await createPin(tx, {
          tool: s.tool,
          contractVersion: s.contractVersion,
          hash,
          definition: json,
          pinnedAt: now,
        });
        audit([pinnedEvent(s.tool, s.contractVersion, hash, "pinned the definition", now)]);
        continue;
      }
      // A contract saved again keeps what the tool was classified against: the pin moves to the new version with its
      // definition, and a differing one still waits for an admin (the contract form never showed it).
      const contractVersion = Math.max(pin.contractVersion, s.contractVersion);
      const differs = pin.hash !== hash && pin.changedHash !== hash;
      if (contractVersion === pin.contractVersion && !differs) continue;
      await updatePin(tx, pin, {
        contractVersion,
        ...(differs ? { changedHash: hash, changedDefinition: json } : {}),
        ...(contractVersion !== pin.contractVersion ? { pinnedAt: now } : {}),
      });
      if (contractVersion !== pin.contractVersion) {
        audit([pinnedEvent(s.tool, contractVersion, pin.hash, "kept the pinned definition", now)]);
      }
      if (differs) {
        audit([
          {
            subjectType: "contract",
            subjectId: s.tool,
            actor: SYSTEM_ACTOR,
            action: "contract.tool_changed",
            reason:
              `the upstream's definition of ${s.tool} differs from the one its contract was classified against; ` +
              "not listed, calls refused until an admin confirms it",
            data: { pinnedHash: pin.hash, upstreamHash: hash },
            at: now,
          },
        ]);
      }
    }
    const rows = await tx.toolPin.findMany({ where: { tool: { in: seen.map((s) => s.tool) } } });
    return new Map(rows.map((row) => [row.tool, row]));
  });
}

function pinnedEvent(tool: string, contractVersion: number, hash: string, what: string, now: Date): AuditInput {
  return {
    subjectType: "contract",
    subjectId: tool,
    actor: SYSTEM_ACTOR,
    action: "contract.tool_pinned",
    reason: `${what} of ${tool} under contract version ${contractVersion}`,
    data: { contractVersion, hash },
    at: now,
  };
}

/** The first pin of a tool; another instance's first pin, made meanwhile, is read again (withWriteRetry). */
async function createPin(tx: AuditedTx, row: Omit<ToolPin, "changedHash" | "changedDefinition">): Promise<void> {
  try {
    await tx.toolPin.create({ data: row });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "P2002") {
      throw new WriteConflict(`${row.tool} was pinned meanwhile.`);
    }
    throw error;
  }
}

/**
 * Changes the pin as it was read, or runs the transaction again on what another writer made of it: a pin's hash under
 * a contract version is never overwritten by a look that read it before (docs/mcp.md, "Pinned tools").
 */
export async function updatePin(tx: AuditedTx, pin: ToolPin, data: Partial<Omit<ToolPin, "tool">>): Promise<void> {
  const { count } = await tx.toolPin.updateMany({
    where: {
      tool: pin.tool,
      contractVersion: pin.contractVersion,
      hash: pin.hash,
      changedHash: pin.changedHash,
    },
    data,
  });
  if (count !== 1) throw new WriteConflict(`The pin of ${pin.tool} changed meanwhile.`);
}
