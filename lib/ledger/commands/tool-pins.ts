// Pinned tools (docs/mcp.md, "Pinned tools"): a contracted MCP tool is called only while its upstream describes it as
// it was when a person classified it. The first time the gateway sees a contracted tool (or sees it under a new
// contract version) it pins the definition, audited; a definition that differs later is recorded once (audited, which
// is the webhook event `tool.changed`) and keeps the tool unlisted and uncalled until an admin confirms it.
import type { ToolPin } from "@/lib/generated/prisma/client";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import type { Ledger } from "@/lib/ledger/ledger";
import { SYSTEM_ACTOR, type Actor } from "../actor";
import { canonicalJson, sha256 } from "../canonical-json";
import { LedgerError } from "../errors";

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
 * The tools among `seen` whose upstream definition differs from the pinned one. Pins a tool that has none, or whose
 * contract has a new version since (a person classified it again), and records a new difference once.
 */
export async function changedTools(ledger: Ledger, seen: readonly SeenTool[], now: Date): Promise<Set<string>> {
  const pins = await toolPins(
    ledger,
    seen.map((s) => s.tool),
  );
  const changed = new Set<string>();
  const writes: SeenTool[] = [];
  for (const s of seen) {
    const pin = pins.get(s.tool);
    const { hash } = pinned(s.definition);
    if (!pin || pin.contractVersion < s.contractVersion) writes.push(s);
    else if (pin.hash !== hash) {
      changed.add(s.tool);
      if (pin.changedHash !== hash) writes.push(s);
    }
  }
  if (writes.length > 0) await recordPins(ledger, writes, now);
  return changed;
}

async function recordPins(ledger: Ledger, seen: readonly SeenTool[], now: Date): Promise<void> {
  await auditedTransaction(ledger, async (tx, audit) => {
    for (const s of seen) {
      const { json, hash } = pinned(s.definition);
      const pin = await tx.toolPin.findUnique({ where: { tool: s.tool } });
      if (!pin || pin.contractVersion < s.contractVersion) {
        const row = { contractVersion: s.contractVersion, hash, definition: json, pinnedAt: now };
        await tx.toolPin.upsert({
          where: { tool: s.tool },
          create: { tool: s.tool, ...row },
          update: { ...row, changedHash: null, changedDefinition: null },
        });
        audit([
          {
            subjectType: "contract",
            subjectId: s.tool,
            actor: SYSTEM_ACTOR,
            action: "contract.tool_pinned",
            reason: `pinned the definition ${s.tool} has now under contract version ${s.contractVersion}`,
            data: { contractVersion: s.contractVersion, hash },
            at: now,
          },
        ]);
      } else if (pin.hash !== hash && pin.changedHash !== hash) {
        await tx.toolPin.update({ where: { tool: s.tool }, data: { changedHash: hash, changedDefinition: json } });
        audit([
          {
            subjectType: "contract",
            subjectId: s.tool,
            actor: SYSTEM_ACTOR,
            action: "contract.tool_changed",
            reason: `the upstream's definition of ${s.tool} differs from the one its contract was classified against; not listed, calls refused until an admin confirms it`,
            data: { pinnedHash: pin.hash, upstreamHash: hash },
            at: now,
          },
        ]);
      }
    }
  });
}

/**
 * An admin confirms the definition the upstream now gives (the one they were shown, by its hash): it becomes the
 * pinned one, audited, and the tool is listed and called again. A definition that changed again since is refused.
 */
export async function confirmToolDefinition(
  ledger: Ledger,
  tool: string,
  input: { hash: string },
  actor: Actor,
  now: Date,
): Promise<void> {
  await auditedTransaction(ledger, async (tx, audit) => {
    const pin = await tx.toolPin.findUnique({ where: { tool } });
    if (!pin?.changedHash || !pin.changedDefinition) {
      throw new LedgerError("not_found", `The definition of ${tool} has not changed; there is nothing to confirm.`);
    }
    if (pin.changedHash !== input.hash) {
      throw new LedgerError(
        "write_conflict",
        `The definition of ${tool} changed again since it was shown; look at it again before confirming.`,
      );
    }
    await tx.toolPin.update({
      where: { tool },
      data: { hash: pin.changedHash, definition: pin.changedDefinition, changedHash: null, changedDefinition: null },
    });
    audit([
      {
        subjectType: "contract",
        subjectId: tool,
        actor,
        action: "contract.tool_confirmed",
        reason: `confirmed the upstream's new definition of ${tool}`,
        data: { from: pin.hash, to: pin.changedHash },
        at: now,
      },
    ]);
  });
}
