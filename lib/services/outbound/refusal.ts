// What an outbound request comes back as: an answer, a refusal naming the rule that stopped it, or a failure of the
// network; never an exception, and never a secret.

/** The rules of docs/security.md#outbound-requests; every refusal names one. */
export type OutboundRule =
  /** Not an absolute http(s) URL, or one carrying credentials of its own. */
  | "url"
  /** A header that may only come from an OPLEDGER_SECRET_* variable was passed in directly. */
  | "header"
  /** The variable named is not an OPLEDGER_SECRET_* variable. */
  | "secret_name"
  /** The OPLEDGER_SECRET_* variable is not set. */
  | "secret_missing"
  /** The secret is bound (OPLEDGER_SECRET_<NAME>_HOSTS) to other hosts. */
  | "secret_host"
  /** A secret over plain http to a host that is not loopback. */
  | "secret_https"
  /** The host resolves to a private, loopback, link-local or otherwise non-public address. */
  | "private_address"
  /** The host resolves to an address no outbound request may reach, whatever the settings (metadata, multicast...). */
  | "forbidden_address"
  /** The provider answered with a redirect, which is not followed. */
  | "redirect";

export interface OutboundRefusal {
  outcome: "refused";
  rule: OutboundRule;
  /** One sentence naming the rule, the host and what would allow it; never the secret. */
  reason: string;
  /** The provider's status, for the one refusal that comes after an answer (a redirect). */
  status?: number;
}

export interface OutboundFailure {
  outcome: "failed";
  /**
   * timeout: no whole answer in time; unreachable: no connection, or it broke; unresolved: the name has no address;
   * invalid: the HTTP layer would not make the request (a header value it refuses).
   */
  kind: "timeout" | "unreachable" | "unresolved" | "invalid";
  /** What happened, without the secret (e.g. "connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED)"). */
  detail: string;
  reason: string;
}

export interface OutboundAnswer {
  outcome: "answered";
  status: number;
  contentType: string | null;
  /** The body as text, cut at the size cap, with the secret redacted. */
  body: string;
  /** The provider sent more than the cap; the rest was not read. */
  truncated: boolean;
}

export type OutboundResult = OutboundAnswer | OutboundRefusal | OutboundFailure;

export function refusal(rule: OutboundRule, reason: string, status?: number): OutboundRefusal {
  return { outcome: "refused", rule, reason, ...(status === undefined ? {} : { status }) };
}
