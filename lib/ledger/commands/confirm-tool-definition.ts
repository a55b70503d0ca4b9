// An admin confirms the definition an upstream now gives a contracted MCP tool that changed since it was classified
// (docs/mcp.md, "Pinned tools"): one audited transaction makes a new version of the tool's contract with the same rules,
// pins the confirmed definition under it, and the gateway lists and calls the tool again.
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { reissueContractVersion } from "@/lib/ledger/contracts/contract-versions";
import type { Ledger } from "@/lib/ledger/ledger";
import { personOf, type Actor } from "../actor";
import { LedgerError } from "../errors";
import { updatePin } from "./tool-pins";

export interface ConfirmDefinitionInput {
  /** The contract version and the changed definition's hash the admin was shown: anything newer is refused. */
  contractVersion: number;
  hash: string;
  /** Why, in the admin's words: the new version's reason in the audit trail. */
  reason: string;
}

export interface ConfirmedDefinition {
  tool: string;
  /** The contract version the confirmed definition is pinned under. */
  version: number;
}

function requireAdmin(actor: Actor, tool: string): void {
  if (personOf(actor)?.role !== "admin") {
    throw new LedgerError(
      "person_required",
      `Confirming the new definition of ${tool} is a person's decision: only an admin (or a key bound to one) may make it.`,
    );
  }
}

export async function confirmToolDefinition(
  ledger: Ledger,
  tool: string,
  input: ConfirmDefinitionInput,
  actor: Actor,
  now: Date,
): Promise<ConfirmedDefinition> {
  requireAdmin(actor, tool);
  return auditedTransaction(ledger, async (tx, audit) => {
    const pin = await tx.toolPin.findUnique({ where: { tool } });
    if (!pin?.changedHash || !pin.changedDefinition) {
      throw new LedgerError("not_found", `The definition of ${tool} has not changed; there is nothing to confirm.`);
    }
    if (pin.contractVersion !== input.contractVersion) {
      throw new LedgerError(
        "contract_conflict",
        `The contract for ${tool} changed since you saw version ${input.contractVersion}; look at the tool again before confirming.`,
      );
    }
    if (pin.changedHash !== input.hash) {
      throw new LedgerError(
        "write_conflict",
        `The definition of ${tool} changed again since it was shown; look at it again before confirming.`,
      );
    }
    const version = await reissueContractVersion(tx, tool, input.contractVersion, actor, now);
    await updatePin(tx, pin, {
      contractVersion: version.version,
      hash: pin.changedHash,
      definition: pin.changedDefinition,
      changedHash: null,
      changedDefinition: null,
      pinnedAt: now,
    });
    const definition = { from: pin.hash, to: pin.changedHash };
    audit([
      {
        subjectType: "contract",
        subjectId: tool,
        actor,
        action: "contract.updated",
        reason: input.reason,
        data: { version: version.version, previousVersion: input.contractVersion, definition },
        at: now,
      },
      {
        subjectType: "contract",
        subjectId: tool,
        actor,
        action: "contract.tool_confirmed",
        reason: input.reason,
        data: { contractVersion: version.version, ...definition },
        at: now,
      },
    ]);
    return { tool, version: version.version };
  });
}
