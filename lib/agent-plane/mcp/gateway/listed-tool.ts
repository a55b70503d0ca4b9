// A tool as the gateway lists it: the upstream's name, schema and description, with annotations written from the
// contract (the upstream's own hints are untrusted) and one sentence of the contract appended.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { EffectClass } from "@/lib/retry-gate/types";

/** What the contract's class lets a client rely on; the upstream's hints are dropped, never merged. */
export function annotationsOf(effect: EffectClass): NonNullable<Tool["annotations"]> {
  switch (effect) {
    case "PURE":
      return { readOnlyHint: true, idempotentHint: true };
    case "IDEMPOTENT":
      return { idempotentHint: true, destructiveHint: false };
    case "REPLAYABLE":
    case "UNKNOWN":
    case "NON_RETRYABLE":
      return { destructiveHint: true, idempotentHint: false };
    default:
      return assertNever(effect, "effect class");
  }
}

/** One sentence of the contract, for a model reading the tool list. */
export function contractSentence(contract: Pick<ContractView, "effect" | "approval" | "mode">): string {
  const prefix = contract.mode === "observe" ? "opledger (observing)" : "opledger";
  if (contract.approval === "required") {
    return `${prefix}: every call of this tool waits for a person's approval before it runs.`;
  }
  switch (contract.effect) {
    case "PURE":
      return `${prefix}: a PURE tool; it changes nothing and is retried automatically.`;
    case "IDEMPOTENT":
      return `${prefix}: an IDEMPOTENT tool; a failed call is retried with the same key.`;
    case "REPLAYABLE":
      return `${prefix}: a REPLAYABLE tool; after a failed call its record is checked before it is tried again.`;
    case "UNKNOWN":
      return `${prefix}: an UNKNOWN-class tool; after a failed call a person finds out what happened before it is tried again.`;
    case "NON_RETRYABLE":
      return `${prefix}: a NON_RETRYABLE tool; a failed call needs a person's approval before it is tried again.`;
    default:
      return assertNever(contract.effect, "effect class");
  }
}

export function listedTool(
  name: string,
  upstream: Pick<Tool, "description" | "inputSchema" | "outputSchema" | "title">,
  contract: ContractView,
): Tool {
  const sentence = contractSentence(contract);
  return {
    name,
    ...(upstream.title ? { title: upstream.title } : {}),
    description: upstream.description ? `${upstream.description.trimEnd()}\n\n${sentence}` : sentence,
    inputSchema: upstream.inputSchema,
    ...(upstream.outputSchema ? { outputSchema: upstream.outputSchema } : {}),
    annotations: annotationsOf(contract.effect),
    // Any call may come to wait for a person (an approval, a spent budget): a client that can may run it as a task.
    execution: { taskSupport: "optional" },
  };
}
