// The OpenAPI schema of a contract's error rules (docs/error-rules.md), as plain objects for lib/agent-plane/openapi.ts to
// merge: `schemas` into components.schemas, `contractInputFields` and `contractFields` into ContractInput and Contract.
import { ERROR_RULES_MAX, RULE_MESSAGE_MAX, RULE_PATTERN_MAX } from "@/lib/retry-gate/error-rules";
import { ERROR_RULE_MEANINGS } from "@/lib/retry-gate/types";
import { ref } from "./parts";

const status = { type: "integer", minimum: 100, maximum: 599 };

export const schemas = {
  ErrorRule: {
    type: "object",
    description:
      "One error rule: when every condition it names holds for a failed attempt's error, `then` says what the error " +
      "means for this tool, before the global table. Rules are read in order and the first that matches decides; the " +
      'gate\'s reason names it ("rule 2 of payments.charge: ...").',
    required: ["when", "then"],
    additionalProperties: false,
    properties: {
      when: {
        type: "object",
        additionalProperties: false,
        minProperties: 1,
        properties: {
          httpStatus: {
            description: "A status, or an inclusive range [low, high].",
            oneOf: [status, { type: "array", prefixItems: [status, status], minItems: 2, maxItems: 2 }],
          },
          kind: {
            type: "string",
            maxLength: 64,
            description:
              "The reported kind as sent (ECONNRESET) or as the global table names it (connection_reset, conflict, " +
              "tool_error for an MCP tool's isError answer); case and - or space against _ do not matter.",
          },
          message: {
            type: "string",
            maxLength: RULE_PATTERN_MAX,
            description:
              `An RE2 pattern (linear-time matching: no backreferences or lookarounds), case-insensitive, searched in ` +
              `the first ${RULE_MESSAGE_MAX} characters of the error's message (an MCP tool's isError text).`,
          },
        },
      },
      then: {
        type: "string",
        enum: [...ERROR_RULE_MEANINGS],
        description:
          "transient: retried under the class's rules with backoff; fatal: never retried; unknown: the effect may " +
          "have happened, so the outcome is UNKNOWN (reconcile); rate_limited: transient, waiting the provider's " +
          "Retry-After. For a NON_RETRYABLE tool an outcome the global table calls unknown stays unknown.",
      },
      why: { type: "string", maxLength: 300, description: "Why, in words: the gate's reason quotes it." },
    },
  },
};

export const contractInputFields = {
  errorRules: {
    type: ["array", "null"],
    maxItems: ERROR_RULES_MAX,
    items: ref("ErrorRule"),
    description: "Ordered error rules read before the global error table. Null or absent: none.",
  },
};

export const contractFields = {
  errorRules: { type: "array", items: ref("ErrorRule"), description: "The ordered error rules ([] when none)." },
};
