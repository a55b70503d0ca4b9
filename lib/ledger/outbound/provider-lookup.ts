// Provider lookup: asks the provider, by the operation's key or provider id, whether an effect exists, and returns the
// evidence. The request itself goes through lib/services/outbound, which holds the rules for secrets and addresses.
import type { ContractRules } from "@/lib/ledger/contracts/contract-schema";
import { sendOutbound, type OutboundOptions } from "@/lib/services/outbound/send";

export type ReconcileSettings = NonNullable<ContractRules["reconcile"]>;

/** What a lookup needs to know about the operation. */
export interface LookupTarget {
  idempotencyKey: string;
  providerId: string | null;
}

/** The first bytes of the provider's answer kept as evidence. */
export const EXCERPT_CHARS = 2048;
/** More than this is not read: the fields a lookup needs are near the top of any sane answer. */
const MAX_BODY_BYTES = 256 * 1024;
const DEFAULT_TIMEOUT_MS = 5000;

export type LookupEvidence =
  | {
      ok: true;
      source: "provider_lookup";
      /** The URL asked (keys and ids are not secrets; the Authorization header is never kept). */
      url: string;
      /** The provider's HTTP status: 2xx found a record, 404 found none. */
      status: number;
      providerId: string | null;
      /** true: the effect happened; false: it did not; null: the answer does not say. */
      applied: boolean | null;
      /** Why `applied` is what it is, in one sentence. */
      verdict: string;
      excerpt: string;
      truncated: boolean;
      lookedUpAt: string;
    }
  | {
      ok: false;
      source: "provider_lookup";
      url: string | null;
      /** Why there is no evidence; the operation is left as it was. */
      reason: string;
      /** The HTTP status when the provider answered with an error. */
      status?: number;
      lookedUpAt: string;
    };

export type LookupFailure = Extract<LookupEvidence, { ok: false }>;

/**
 * Fills {idempotencyKey} and {providerId}, encoded; an error when the template needs a provider id the operation lacks.
 */
export function lookupUrl(template: string, target: LookupTarget): { url: string } | { error: string } {
  const fills: Record<string, string | null> = { idempotencyKey: target.idempotencyKey, providerId: target.providerId };
  const missing: string[] = [];
  // Braces may arrive percent-encoded if the template went through a URL parser on its way in.
  const url = template.replace(
    /\{(idempotencyKey|providerId)\}|%7[Bb](idempotencyKey|providerId)%7[Dd]/g,
    (_, plain?: string, encoded?: string) => {
      const name = plain ?? encoded ?? "";
      const value = fills[name];
      if (value === null || value === undefined || value === "") {
        missing.push(name);
        return "";
      }
      return encodeURIComponent(value);
    },
  );
  if (missing[0])
    return { error: `the lookup URL needs the operation's ${missing[0]}, and the operation has none yet` };
  return { url };
}

/** A dotted path ("data.id") into parsed JSON; only strings, numbers and booleans count as values. */
function field(json: unknown, path: string): string | null {
  let value: unknown = json;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    value = (value as Record<string, unknown>)[part];
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What the answer says about the effect. */
function judge(
  settings: ReconcileSettings,
  status: number,
  json: unknown,
): { applied: boolean | null; verdict: string } {
  if (status === 404)
    return {
      applied: false,
      verdict: "The provider has no record for this operation (404), so the effect did not happen.",
    };
  if (!settings.statusField) {
    return { applied: true, verdict: `The provider found a record (${status}), so the effect happened.` };
  }
  if (json === undefined) {
    return {
      applied: null,
      verdict: `The provider answered ${status} but not with JSON, so its ${settings.statusField} cannot be read.`,
    };
  }
  const value = field(json, settings.statusField);
  if (value === null) {
    return {
      applied: null,
      verdict: `The answer has no ${settings.statusField}, so it does not say whether the effect happened.`,
    };
  }
  const appliedValues = settings.appliedValues ?? [];
  if (appliedValues.length === 0) {
    return {
      applied: null,
      verdict: `${settings.statusField} is "${value}", and the contract lists no values that mean the effect happened.`,
    };
  }
  if (appliedValues.includes(value)) {
    return { applied: true, verdict: `${settings.statusField} is "${value}", which means the effect happened.` };
  }
  return {
    applied: false,
    verdict:
      `${settings.statusField} is "${value}", ` +
      `not one of ${appliedValues.map((v) => `"${v}"`).join(", ")}, so the effect did not happen.`,
  };
}

/**
 * Runs the contract's lookup (an HTTP GET, server-side, bounded by timeoutMs) and says whether the effect exists.
 * Never throws: a lookup that is refused, fails or times out comes back as `{ ok: false, reason }`, and the caller
 * leaves the operation as it was. The Authorization header comes from the OPLEDGER_SECRET_* variable the contract
 * names, under the rules of lib/services/outbound (bound hosts, https, no private addresses unless allowed); its value is
 * neither logged nor kept in the evidence.
 * `outbound` is for tests (private addresses, a resolver, the environment secrets are read from).
 */
export async function lookupEffect(
  settings: ReconcileSettings | null,
  operation: LookupTarget,
  now: Date = new Date(),
  outbound: OutboundOptions = {},
): Promise<LookupEvidence> {
  const lookedUpAt = now.toISOString();
  const fail = (reason: string, url: string | null, status?: number): LookupFailure => ({
    ok: false,
    source: "provider_lookup",
    url,
    reason,
    ...(status === undefined ? {} : { status }),
    lookedUpAt,
  });
  if (!settings || settings.method !== "lookup" || !settings.urlTemplate) {
    return fail("the tool's contract has no provider lookup; reconcile from other evidence", null);
  }
  const filled = lookupUrl(settings.urlTemplate, operation);
  if ("error" in filled) return fail(filled.error, null);
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const answer = await sendOutbound(
    {
      url: filled.url,
      headers: { accept: "application/json" },
      ...(settings.authHeaderEnv ? { secretEnv: settings.authHeaderEnv } : {}),
      timeoutMs,
      maxBytes: MAX_BODY_BYTES,
    },
    outbound,
  );
  const url = filled.url;
  switch (answer.outcome) {
    case "refused":
      return fail(`refused: ${answer.reason}`, url, answer.status);
    case "failed":
      return fail(
        answer.kind === "timeout"
          ? `the provider did not answer within ${timeoutMs} ms`
          : `the provider could not be reached: ${answer.detail}`,
        url,
      );
    case "answered":
      break;
    default: {
      const never: never = answer;
      return never;
    }
  }
  const { status, body: text, truncated } = answer;
  const excerpt = text.slice(0, EXCERPT_CHARS);
  const excerptCut = truncated || text.length > EXCERPT_CHARS;
  if (status !== 404 && (status < 200 || status > 299)) {
    const said = excerpt ? `: ${excerpt.slice(0, 200)}` : "";
    return fail(`the provider answered ${status}, which is neither a record nor "not found"${said}`, url, status);
  }
  const json = parseJson(text);
  const { applied, verdict } = judge(settings, status, json);
  const providerId = status === 404 || json === undefined ? null : field(json, settings.providerIdField ?? "id");
  return {
    ok: true,
    source: "provider_lookup",
    url,
    status,
    providerId,
    applied,
    verdict,
    excerpt,
    truncated: excerptCut,
    lookedUpAt,
  };
}

/** What the evidence proves, as a reconciliation: null when it proves nothing either way. */
export function reconcileSuggestion(
  evidence: LookupEvidence,
): { outcome: "applied"; providerId: string | null } | { outcome: "not_applied" } | null {
  if (!evidence.ok || evidence.applied === null) return null;
  return evidence.applied ? { outcome: "applied", providerId: evidence.providerId } : { outcome: "not_applied" };
}

/** The evidence as text for a reconciliation's evidence field (the console's form takes text). */
export function evidenceText(evidence: LookupEvidence): string {
  if (!evidence.ok) return `Provider lookup ${evidence.url ?? ""} failed at ${evidence.lookedUpAt}: ${evidence.reason}`;
  return [
    `Provider lookup GET ${evidence.url} at ${evidence.lookedUpAt}: HTTP ${evidence.status}.`,
    evidence.verdict,
    evidence.providerId ? `Provider id: ${evidence.providerId}.` : null,
    `Answer${evidence.truncated ? " (first 2 KB)" : ""}: ${evidence.excerpt}`,
  ]
    .filter((line): line is string => line !== null)
    .join("\n");
}
