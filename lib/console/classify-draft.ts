// A first draft of a contract for an upstream's tool, read from the upstream's own hints: a suggestion a person
// confirms or overrides, never a classification (the MCP specification says clients must not trust the hints).
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

export interface ClassifyDraft {
  /** The gateway name the contract will be saved under (`<upstream>__<tool>`). */
  tool: string;
  description: string;
  /** PURE or IDEMPOTENT when the hints say so; null: a person picks the class. */
  suggestedEffect: "PURE" | "IDEMPOTENT" | "UNKNOWN" | null;
  /** Why this suggestion, in one sentence naming the hints it comes from. */
  why: string;
}

/** `tool` as the gateway names it: `name` is its gateway name, the rest as the upstream described it. */
export function draftFromHints(tool: Pick<Tool, "name" | "description" | "annotations">): ClassifyDraft {
  const hints = tool.annotations ?? {};
  const description = tool.description ?? "";
  if (hints.readOnlyHint === true) {
    return {
      tool: tool.name,
      description,
      suggestedEffect: "PURE",
      why: "The upstream says the tool only reads (readOnlyHint); check that before you save.",
    };
  }
  if (hints.idempotentHint === true && hints.destructiveHint === false) {
    return {
      tool: tool.name,
      description,
      suggestedEffect: "IDEMPOTENT",
      why:
        "The upstream says repeating a call has no further effect (idempotentHint) and nothing is destroyed " +
        "(destructiveHint: false); check that before you save.",
    };
  }
  return {
    tool: tool.name,
    description,
    suggestedEffect: null,
    why: "The upstream's hints do not say the tool is safe to repeat; pick the class yourself.",
  };
}
