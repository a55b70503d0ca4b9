// The client address that sign-in throttling keys on: taken from X-Forwarded-For by the number of trusted proxies.
import ipaddr from "ipaddr.js";

/** An entry as proxies write it: an address, possibly in brackets or with a port. */
function addressOf(entry: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed?.[1]) text = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  // An IPv6 zone ("fe80::1%eth0") names an interface of the proxy, not a different client.
  text = text.replace(/%.*$/, "");
  if (!ipaddr.isValid(text)) return null;
  return ipaddr.process(text);
}

/**
 * The key for one client: an IPv4 address as it is, an IPv6 address by its /64, since one host is commonly given a
 * whole /64 and could otherwise step through it. IPv4-mapped IPv6 addresses count as the IPv4 address.
 */
function addressKey(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
}

/**
 * The client's address from X-Forwarded-For, or null when there is none to trust.
 *
 * Next.js fills X-Forwarded-For from the socket when a request arrives without one, and each proxy appends the address
 * it received the request from. With `trustedProxies` proxies in front, the client is the entry that many places from
 * the right (with none, the last entry, the one Next.js wrote). Entries further left were written by the client and
 * are never used. A missing or unparsable entry gives null: the caller then applies only its per-account limit.
 */
export function clientAddress(forwardedFor: string | null | undefined, trustedProxies: number): string | null {
  const entries = (forwardedFor ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) return null;
  const index = entries.length - Math.max(trustedProxies, 1);
  const entry = entries[Math.max(index, 0)];
  const address = entry === undefined ? null : addressOf(entry);
  return address ? addressKey(address) : null;
}
