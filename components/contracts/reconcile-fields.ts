// The contract form's reconciliation section: how a person proves whether a lost call took effect, and the lookup's
// settings, shown only for a lookup.
import type { ContractSection } from "./contract-field-types";
import { RECONCILE_CHOICES } from "./contract-words";

export const RECONCILE_SECTION: ContractSection = {
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
          help:
            "An HTTP GET on the provider; {idempotencyKey} and {providerId} are filled in, e.g. " +
            "https://api.stripe.com/v1/charges/search?query=metadata['key']:'{idempotencyKey}'.",
          mono: true,
          wide: true,
        },
        {
          kind: "text",
          key: "authHeaderEnv",
          name: "reconcile.authHeaderEnv",
          label: "Auth header variable",
          help:
            "The name of the server's environment variable that holds the Authorization header, e.g. " +
            "STRIPE_LOOKUP_AUTH. The secret itself is never stored here.",
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
          help:
            "How long an operation may stay Unknown before the unknowns.aged webhook event tells someone (1000 ms " +
            "to 30 days). Empty: 15 min.",
          numeric: true,
          duration: true,
          placeholder: "15 min when empty",
        },
      ],
    },
  ],
};
