// Starter error rules for common providers, written from their public documentation (each cites its page). The contract
// form offers them; they are added to the form only, and take effect once a person saves the contract.
import type { ErrorRule } from "@/lib/retry-gate/types";

export interface StarterRuleSet {
  id: string;
  provider: string;
  /** The public pages the rules were written from. */
  sources: string[];
  rules: ErrorRule[];
}

export const STARTER_RULE_SETS: readonly StarterRuleSet[] = [
  {
    id: "stripe",
    provider: "Stripe API",
    sources: [
      "https://docs.stripe.com/api/idempotent_requests",
      "https://docs.stripe.com/error-codes",
      "https://docs.stripe.com/api/errors",
    ],
    rules: [
      {
        // The idempotency layer saves no result for a request that conflicts with one still executing: retry it.
        when: { httpStatus: 409, message: "idempotency_key_in_use|another in-progress request" },
        then: "transient",
        why: "409 idempotency_key_in_use means the first request with this key is still in progress",
      },
      {
        when: { httpStatus: 402 },
        then: "fatal",
        why: "402 means the request was valid but failed, e.g. the card was declined",
      },
      { when: { httpStatus: 429 }, then: "rate_limited", why: "429 means too many requests hit the API too quickly" },
    ],
  },
  {
    id: "github",
    provider: "GitHub REST API",
    sources: [
      "https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api",
      "https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api",
    ],
    rules: [
      {
        // GitHub answers a primary or secondary rate limit with 403 or 429, and says so in the message.
        when: { httpStatus: 403, message: "rate limit" },
        then: "rate_limited",
        why: "403 with a rate-limit message is GitHub's primary or secondary rate limit, not a permission problem",
      },
      { when: { httpStatus: 429 }, then: "rate_limited", why: "429 is GitHub's rate limit" },
    ],
  },
  {
    id: "openai",
    provider: "OpenAI API",
    sources: ["https://platform.openai.com/docs/guides/error-codes"],
    rules: [
      {
        when: { httpStatus: 429, message: "quota" },
        then: "fatal",
        why: "429 'exceeded your current quota' needs billing, not a retry",
      },
      { when: { httpStatus: 429 }, then: "rate_limited", why: "429 'rate limit reached' clears after a wait" },
      {
        when: { httpStatus: 503, message: "overloaded|slow down" },
        then: "transient",
        why: "503 means the servers are overloaded or traffic must slow down",
      },
    ],
  },
];
