// Which addresses an outbound request may connect to: public unicast only, unless OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on
// opens the private ranges; metadata, unspecified, multicast and broadcast addresses stay closed either way.
import ipaddr from "ipaddr.js";

export type AddressVerdict =
  | { allowed: true }
  /** `always`: no setting opens it; `private`: OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on does. */
  | { allowed: false; tier: "always" | "private"; what: string };

/** Cloud instance metadata (AWS, GCP, Azure, OpenStack; AWS's IPv6 one): credentials live there, never a provider. */
const METADATA = new Set(["169.254.169.254", "fd00:ec2::254"]);

/** Ranges that are never a provider's address: connecting to 0.0.0.0 even reaches this machine on Linux. */
const ALWAYS_CLOSED: Record<string, string> = {
  unspecified: "the unspecified address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
};

/** ipaddr.js's range names, as a person reads them; anything not listed is named by its range. */
const PRIVATE_RANGES: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private (RFC 1918) address",
  linkLocal: "a link-local address",
  carrierGradeNat: "a carrier-grade NAT (100.64.0.0/10) address",
  uniqueLocal: "a unique-local (fc00::/7) address",
  reserved: "a reserved or documentation address",
  deprecatedSiteLocal: "a site-local (fec0::/10) address",
  ipv4Compatible: "an IPv4-compatible IPv6 address",
  rfc6145: "an IPv4-translated IPv6 address",
  "6to4": "a 6to4 (2002::/16) address",
  teredo: "a Teredo (2001::/32) address",
  rfc6052: "a local-use NAT64 address",
};

const NAT64_WELL_KNOWN: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("64:ff9b::"), 96];

/**
 * The IPv4 address a connection to `address` really reaches, when it is an IPv6 form of one: IPv4-mapped
 * (::ffff:a.b.c.d) and the well-known NAT64 prefix (64:ff9b::a.b.c.d), which a NAT64 gateway translates.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(NAT64_WELL_KNOWN)) {
    const [, , , , , , high = 0, low = 0] = address.parts;
    return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  }
  return null;
}

/** ipaddr.js's range, plus ::/96 (IPv4-compatible, deprecated), which it reports as plain unicast. */
function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = address.range();
  if (
    range === "unicast" &&
    address.kind() === "ipv6" &&
    address
      .toByteArray()
      .slice(0, 12)
      .every((b) => b === 0)
  )
    return "ipv4Compatible";
  return range;
}

/** Whether an outbound request may connect to `address` (an IPv4 or IPv6 literal, as DNS returns it). */
export function judgeAddress(address: string, allowPrivate: boolean): AddressVerdict {
  if (!ipaddr.isValid(address)) return { allowed: false, tier: "always", what: "not an IP address" };
  const parsed = ipaddr.parse(address);
  const real = parsed.kind() === "ipv6" ? (embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed) : parsed;
  const mapped = real !== parsed ? ` (${real.toString()})` : "";
  if (METADATA.has(real.toNormalizedString()) || METADATA.has(real.toString()))
    return { allowed: false, tier: "always", what: `the cloud metadata address${mapped}` };
  const range = rangeOf(real);
  const closed = ALWAYS_CLOSED[range];
  if (closed) return { allowed: false, tier: "always", what: `${closed}${mapped}` };
  if (range === "unicast") return { allowed: true };
  if (allowPrivate) return { allowed: true };
  return { allowed: false, tier: "private", what: `${PRIVATE_RANGES[range] ?? `in the ${range} range`}${mapped}` };
}

/** A URL's hostname without the brackets of an IPv6 literal or a trailing dot, lower-cased. */
export function bareHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();
}

/** The host is literally loopback: `localhost`, 127.0.0.0/8, ::1, or an IPv6 form of 127.x. */
export function isLoopbackName(hostname: string): boolean {
  const host = bareHost(hostname);
  if (host === "localhost") return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === "loopback";
}

/** Whether `address` is loopback, for the https rule's exception (checked on the resolved addresses too). */
export function isLoopbackAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === "loopback";
}
