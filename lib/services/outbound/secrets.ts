// The secrets an outbound request may carry: only OPLEDGER_SECRET_* variables, only to the hosts they are bound to,
// only over https (or to loopback).
import { bareHost, isLoopbackName } from "./address-policy";
import { refusal, type OutboundRefusal } from "./refusal";

export type Environment = Record<string, string | undefined>;

/** The same rule as the contract schema's; checked again here for contracts stored before it existed. */
export const SECRET_NAME = /^OPLEDGER_SECRET_[A-Z0-9_]+$/;
const HOSTS_SUFFIX = "_HOSTS";

/** The variable that binds a secret to its hosts: OPLEDGER_SECRET_PAYMENTS -> OPLEDGER_SECRET_PAYMENTS_HOSTS. */
export function hostsVariable(secretName: string): string {
  return `${secretName}${HOSTS_SUFFIX}`;
}

/**
 * The hosts a secret may go to, normalized as URLs normalize hosts (lower case, IDNA, IPv4 and IPv6 spelled one way),
 * or null when the secret is not bound. Set but empty binds it to no host at all: a typo fails closed.
 */
export function boundHosts(secretName: string, environment: Environment): string[] | null {
  const list = environment[hostsVariable(secretName)];
  if (list === undefined) return null;
  const hosts: string[] = [];
  for (const entry of list.split(",")) {
    const trimmed = entry.trim();
    if (!trimmed) continue;
    try {
      // Ports are not part of the binding: "api.example.com:8443" binds api.example.com.
      hosts.push(bareHost(new URL(`https://${trimmed}`).hostname));
    } catch {
      // An entry that is not a host matches nothing.
    }
  }
  return hosts;
}

export type SecretGrant = { granted: true; name: string; value: string } | OutboundRefusal;

/**
 * The value of the secret `name`, when it may be sent to `url`. Subdomains are not covered: a secret bound to
 * api.example.com is refused for eu.api.example.com, which has to be listed itself.
 */
export function grantSecret(name: string, url: URL, environment: Environment): SecretGrant {
  if (!SECRET_NAME.test(name) || name.endsWith(HOSTS_SUFFIX)) {
    return refusal(
      "secret_name",
      `${name} is not an OPLEDGER_SECRET_* variable, and only those may be sent to a provider; the request was not sent.`,
    );
  }
  const value = environment[name];
  if (value === undefined || value.trim() === "") {
    return refusal(
      "secret_missing",
      `${name} is not set in the server's environment, so the request was not sent (it would have gone without its credentials).`,
    );
  }
  const host = bareHost(url.hostname);
  const hosts = boundHosts(name, environment);
  if (hosts !== null && !hosts.includes(host)) {
    const allowed = hosts.length > 0 ? hosts.join(", ") : `no host (${hostsVariable(name)} is empty)`;
    return refusal("secret_host", `${name} may only be sent to ${allowed}; this request goes to ${host}.`);
  }
  if (url.protocol !== "https:" && !isLoopbackName(url.hostname)) {
    return refusal(
      "secret_https",
      `${name} is only sent over https (or to a loopback address); this request is plain http to ${host}.`,
    );
  }
  return { granted: true, name, value };
}
