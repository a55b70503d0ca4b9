// The checks a webhook must pass before it is stored: an http(s) URL the outbound rules would send to, a secret named
// as docs/authority.md#secrets-and-outbound-requests asks, holding a Standard Webhooks secret, and event types that
// exist. Each failure names its field.
import { Webhook } from "standardwebhooks";
import { env } from "@/lib/platform/config/env";
import { checkedAddresses, systemResolver } from "@/lib/services/outbound/resolve";
import { grantSecret, type Environment } from "@/lib/services/outbound/secrets";
import type { OutboundOptions } from "@/lib/services/outbound/send";
import { isWebhookEventType } from "./event-types";
import type { WebhookBody } from "./webhook-schema";

export type FieldErrors = Record<string, string[]>;

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

async function urlErrors(raw: string, options: OutboundOptions): Promise<string[]> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ["must be an absolute http(s) URL"];
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return [`must be http or https, not ${url.protocol}`];
  if (url.username || url.password) return ["must not carry a user name or password"];
  const allowPrivate = options.allowPrivate ?? env().OPLEDGER_OUTBOUND_ALLOW_PRIVATE === "on";
  const checked = await checkedAddresses(url.hostname, allowPrivate, options.resolve ?? systemResolver);
  // A name that does not resolve now may resolve later: only a refusal by the rules is final.
  return checked.outcome === "refused" ? [checked.reason] : [];
}

/** The secret's value is read only to check it; it is never returned or stored. */
function secretErrors(name: string, url: string, environment: Environment): string[] {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    target = new URL("https://invalid.invalid/");
  }
  const grant = grantSecret(name, target, environment);
  if (!("granted" in grant)) {
    // The URL's own problems are reported under url; here only the secret's rules.
    if (grant.rule === "secret_https" || grant.rule === "secret_host") return [grant.reason];
    if (grant.rule === "secret_missing") return [`${name} is not set in the server's environment`];
    return [`must be the name of an OPLEDGER_SECRET_* variable`];
  }
  if (!grant.value.startsWith("whsec_")) return [`${name} must hold a Standard Webhooks secret starting with whsec_`];
  try {
    new Webhook(grant.value);
  } catch {
    return [`${name} holds a whsec_ value that is not base64`];
  }
  return [];
}

export async function webhookErrors(body: WebhookBody, options: OutboundOptions = {}): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  for (const message of await urlErrors(body.url, options)) add(errors, "url", message);
  for (const message of secretErrors(body.secret, body.url, options.environment ?? process.env)) {
    add(errors, "secret", message);
  }
  const unknown = body.events.filter((e) => !isWebhookEventType(e));
  if (unknown.length > 0) add(errors, "events", `unknown event type(s): ${unknown.join(", ")}`);
  return errors;
}
