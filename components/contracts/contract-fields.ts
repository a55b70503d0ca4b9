// The contract form as a table of fields: each rule's form name, label and help in the operator's words, in page order.
import { GATEWAY_DEFAULTS } from "@/lib/ledger/contracts/contract-view";
import type { ContractSection } from "./contract-field-types";
import {
  APPROVAL_CHOICES,
  EFFECT_CHOICES,
  humanDuration,
  KEY_POLICY_CHOICES,
  MODE_CHOICES,
  TOOL_ERROR_CHOICES,
} from "./contract-words";
import { RECONCILE_SECTION } from "./reconcile-fields";

export const CONTRACT_SECTIONS: ContractSection[] = [
  {
    title: "Tool",
    hint: "The name agents dispatch; it cannot be changed after the contract is created.",
    groups: [
      {
        layout: "stack",
        fields: [
          {
            kind: "text",
            key: "tool",
            name: "tool",
            label: "Tool name",
            help: "Exactly as agents call it, e.g. payments.charge or email.send.",
            mono: true,
            createOnly: true,
          },
        ],
      },
    ],
  },
  {
    title: "Side effect",
    hint: "What repeating a call can do. The class is never guessed from the tool's name.",
    groups: [
      {
        layout: "stack",
        fields: [
          {
            kind: "choice",
            key: "effect",
            name: "effect",
            label: "Side-effect class",
            choices: EFFECT_CHOICES,
            mono: true,
          },
          {
            kind: "choice",
            key: "idempotencyKey",
            name: "idempotencyKey",
            label: "Idempotency key",
            choices: KEY_POLICY_CHOICES,
            compact: true,
          },
        ],
      },
      {
        layout: "two",
        fields: [
          {
            kind: "text",
            key: "keyRetentionMs",
            name: "keyRetentionMs",
            label: "Key retention (ms)",
            help:
              "How long the provider remembers a key (Stripe: 86400000, 24 h). After it, a retry with the same key " +
              "is no longer safe and the gate asks for a reconciliation. Leave empty if keys never expire.",
            numeric: true,
            duration: true,
          },
        ],
      },
    ],
  },
  {
    title: "Retries",
    hint: "The budget of attempts and the wait between them; the gate applies them per operation.",
    groups: [
      {
        layout: "three",
        fields: [
          {
            kind: "text",
            key: "maxAttempts",
            name: "maxAttempts",
            label: "Max attempts",
            help: "Attempts an operation may spend, the first included (1–100). When spent, a person decides.",
            numeric: true,
          },
          {
            kind: "text",
            key: "backoffBaseMs",
            name: "backoff.baseMs",
            errorsAlsoUnder: "backoff",
            label: "Backoff base (ms)",
            help: "The first wait before a retry; it doubles each attempt, with random jitter.",
            numeric: true,
            duration: true,
          },
          {
            kind: "text",
            key: "backoffMaxMs",
            name: "backoff.maxMs",
            label: "Backoff max (ms)",
            help: "The longest wait between attempts, at least the base.",
            numeric: true,
            duration: true,
          },
        ],
      },
    ],
  },
  {
    title: "Approval",
    hint: "When a person must decide, how many people must agree, and how long the request waits for them.",
    groups: [
      {
        layout: "stack",
        fields: [
          {
            kind: "choice",
            key: "approval",
            name: "approval",
            label: "Approval",
            choices: APPROVAL_CHOICES,
            compact: true,
          },
        ],
      },
      {
        layout: "two",
        fields: [
          {
            kind: "text",
            key: "approvals",
            name: "approvals",
            label: "Approvals needed",
            help: "How many different people must approve before the attempt is granted (1–10). Whoever caused the request never counts.",
            numeric: true,
          },
          {
            kind: "text",
            key: "approvalTtlMs",
            name: "approvalTtlMs",
            label: "Approval expires after (ms)",
            help: "How long an operation waits for a person before it ends as Expired, never approved (1000 ms to 30 days). Empty: 24 h.",
            numeric: true,
            duration: true,
            placeholder: "24 h when empty",
          },
        ],
      },
    ],
  },
  RECONCILE_SECTION,
  {
    title: "Dependency and description",
    hint: "Which provider the tool calls, for its circuit breaker, and a note for the next person.",
    groups: [
      {
        layout: "two",
        fields: [
          {
            kind: "text",
            key: "dependency",
            name: "dependency",
            label: "Dependency",
            help: "The provider this tool calls, e.g. stripe. Tools naming the same dependency share one circuit breaker; empty for none.",
            mono: true,
            suggestDependencies: true,
          },
          {
            kind: "textarea",
            key: "description",
            name: "description",
            label: "Description",
            help: "What the tool does and anything an on-call engineer should know (up to 2000 characters).",
          },
        ],
      },
    ],
  },
  {
    title: "MCP gateway",
    hint: "How the gateway (/mcp) calls this tool on its upstream server; agents calling the API directly ignore these.",
    groups: [
      {
        layout: "two",
        fields: [
          {
            kind: "text",
            key: "upstreamTimeoutMs",
            name: "timeoutMs",
            label: "Upstream timeout (ms)",
            help:
              `How long the upstream may take to answer (100–600000; default ${GATEWAY_DEFAULTS.timeoutMs}, ` +
              `${humanDuration(GATEWAY_DEFAULTS.timeoutMs)}). No answer in time: the outcome is UNKNOWN, never ` +
              `retried blindly.`,
            numeric: true,
            duration: true,
            placeholder: `${humanDuration(GATEWAY_DEFAULTS.timeoutMs)} when empty`,
          },
          {
            kind: "text",
            key: "keyFrom",
            name: "keyFrom",
            label: "Idempotency key from",
            help:
              `"${GATEWAY_DEFAULTS.keyFrom}" (the default): the call's arguments, the same key within one run; or a ` +
              `template over the arguments, e.g. refund:{order_id}, the same key across runs.`,
            mono: true,
            placeholder: `${GATEWAY_DEFAULTS.keyFrom} when empty`,
          },
        ],
      },
      {
        layout: "stack",
        fields: [
          {
            kind: "choice",
            key: "toolError",
            name: "toolError",
            label: "A tool error means",
            choices: TOOL_ERROR_CHOICES,
            compact: true,
          },
          {
            kind: "choice",
            key: "mode",
            name: "mode",
            label: "Mode",
            choices: MODE_CHOICES,
            compact: true,
          },
          {
            kind: "checkbox",
            key: "traceArguments",
            name: "traceArguments",
            label: "Arguments in traces",
            help:
              "OpenTelemetry spans of this tool's calls carry its argument and result values. Off (the default): " +
              "they carry none; turn it on only for a tool whose arguments hold no secret or personal data.",
          },
        ],
      },
    ],
  },
];
