// The contract form as a table of fields: each rule's form name, label and help in the operator's words, in page order.
import type { ContractDraft } from "./contract-draft";
import { GATEWAY_DEFAULTS } from "@/lib/ledger/contracts/contract-view";
import {
  APPROVAL_CHOICES,
  EFFECT_CHOICES,
  humanDuration,
  KEY_POLICY_CHOICES,
  MODE_CHOICES,
  RECONCILE_CHOICES,
  TOOL_ERROR_CHOICES,
  type Choice,
} from "./contract-words";

type Draft = ContractDraft;
/** Free text (the tool name, numbers as typed) versus one word of a fixed set (the class, the key policy). */
type TextKey = {
  [K in keyof Draft]: Draft[K] extends string ? (string extends Draft[K] ? K : never) : never;
}[keyof Draft];
type ChoiceKey = {
  [K in keyof Draft]: Draft[K] extends string ? (string extends Draft[K] ? never : K) : never;
}[keyof Draft];
type FlagKey = { [K in keyof Draft]: Draft[K] extends boolean ? K : never }[keyof Draft];
/** Each choice carries its own help. */
type ChoiceField = {
  [K in ChoiceKey]: { kind: "choice"; key: K; choices: Choice<Draft[K]>[]; mono?: boolean; compact?: boolean };
}[ChoiceKey];

interface FieldWords {
  /** The name the server's schema reports problems under, e.g. "backoff.baseMs". */
  name: string;
  /** The label, or the legend of a set of choices. */
  label: string;
  /** A parent name whose problems also belong here, e.g. "backoff" when base and max are wrong together. */
  errorsAlsoUnder?: string;
  /** Takes the whole row of a two-column group. */
  wide?: boolean;
}

export type ContractField = FieldWords &
  (
    | {
        kind: "text";
        key: TextKey;
        help: string;
        mono?: boolean;
        numeric?: boolean;
        /** Milliseconds, read back as "= 24 h" beside the box. */
        duration?: boolean;
        /** Offers the dependencies already known. */
        suggestDependencies?: boolean;
        /** What an empty box means, shown in it, e.g. "24 h when empty". */
        placeholder?: string;
        /** Asked when the contract is created and shown, not asked, when it is edited. */
        createOnly?: boolean;
      }
    | { kind: "textarea"; key: TextKey; help: string }
    | { kind: "checkbox"; key: FlagKey; help: string }
    | ChoiceField
  );

/** How a group of fields sits in its section: one under the other, or side by side in a grid. */
export type GroupLayout = "stack" | "two" | "three" | "lookup";

export interface FieldGroup {
  layout: GroupLayout;
  fields: ContractField[];
  /** Fields that only mean something for some choices (the lookup's settings) are shown only then. */
  shownWhen?: (draft: ContractDraft) => boolean;
}

export interface ContractSection {
  title: string;
  hint: string;
  groups: FieldGroup[];
}

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
            help: "How long the provider remembers a key (Stripe: 86400000, 24 h). After it, a retry with the same key is no longer safe and the gate asks for a reconciliation. Leave empty if keys never expire.",
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
  {
    title: "Reconciliation",
    hint: "How someone proves whether a call whose outcome was lost took effect.",
    groups: [
      {
        layout: "stack",
        fields: [
          {
            kind: "choice",
            key: "reconcileMethod",
            name: "reconcile.method",
            errorsAlsoUnder: "reconcile",
            label: "Reconcile method",
            choices: RECONCILE_CHOICES,
            compact: true,
          },
        ],
      },
      {
        layout: "lookup",
        shownWhen: (draft) => draft.reconcileMethod === "lookup",
        fields: [
          {
            kind: "text",
            key: "urlTemplate",
            name: "reconcile.urlTemplate",
            label: "Lookup URL template",
            help: "An HTTP GET on the provider; {idempotencyKey} and {providerId} are filled in, e.g. https://api.stripe.com/v1/charges/search?query=metadata['key']:'{idempotencyKey}'.",
            mono: true,
            wide: true,
          },
          {
            kind: "text",
            key: "authHeaderEnv",
            name: "reconcile.authHeaderEnv",
            label: "Auth header variable",
            help: "The name of the server's environment variable that holds the Authorization header, e.g. STRIPE_LOOKUP_AUTH. The secret itself is never stored here.",
            mono: true,
          },
          {
            kind: "text",
            key: "lookupTimeoutMs",
            name: "reconcile.timeoutMs",
            label: "Lookup timeout (ms)",
            help: "How long to wait for the provider's answer (100–60000).",
            numeric: true,
            duration: true,
          },
          {
            kind: "text",
            key: "providerIdField",
            name: "reconcile.providerIdField",
            label: "Provider id field",
            help: "Where the answer holds the provider's id for the effect, e.g. data.0.id.",
            mono: true,
          },
          {
            kind: "text",
            key: "statusField",
            name: "reconcile.statusField",
            label: "Status field",
            help: "Where the answer says whether the effect happened, e.g. data.0.status.",
            mono: true,
          },
          {
            kind: "text",
            key: "appliedValues",
            name: "reconcile.appliedValues",
            label: "Values that mean applied",
            help: "Comma-separated status values that prove the effect happened, e.g. succeeded, pending.",
            mono: true,
          },
          {
            kind: "checkbox",
            key: "auto",
            name: "reconcile.auto",
            label: "Let the recovery sweep run this lookup by itself",
            help: "For REPLAYABLE tools: a lost outcome is looked up without waiting for a person. Others still need a person.",
            wide: true,
          },
        ],
      },
      {
        layout: "two",
        fields: [
          {
            kind: "text",
            key: "unknownAlertMs",
            name: "unknownAlertMs",
            label: "Alert on UNKNOWN after (ms)",
            help: "How long an operation may stay Unknown before the unknowns.aged webhook event tells someone (1000 ms to 30 days). Empty: 15 min.",
            numeric: true,
            duration: true,
            placeholder: "15 min when empty",
          },
        ],
      },
    ],
  },
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
            help: `How long the upstream may take to answer (100–600000; default ${GATEWAY_DEFAULTS.timeoutMs}, ${humanDuration(GATEWAY_DEFAULTS.timeoutMs)}). No answer in time: the outcome is UNKNOWN, never retried blindly.`,
            numeric: true,
            duration: true,
            placeholder: `${humanDuration(GATEWAY_DEFAULTS.timeoutMs)} when empty`,
          },
          {
            kind: "text",
            key: "keyFrom",
            name: "keyFrom",
            label: "Idempotency key from",
            help: `"${GATEWAY_DEFAULTS.keyFrom}" (the default): the call's arguments, the same key within one run; or a template over the arguments, e.g. refund:{order_id}, the same key across runs.`,
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
        ],
      },
    ],
  },
];
