// Resolves a request's host to every address it has and judges each one, so the connection can then be pinned to
// addresses that were checked (a second DNS answer between check and connect is never asked for).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { bareHost, judgeAddress } from "./address-policy";
import { refusal, type OutboundFailure, type OutboundRefusal } from "./refusal";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a host name; injectable so tests can make a public-looking name resolve anywhere. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), all addresses, in its own order. */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export type CheckedAddresses = { outcome: "checked"; addresses: ResolvedAddress[] } | OutboundRefusal | OutboundFailure;

/**
 * The addresses of `hostname` (a URL's hostname), every one of them allowed; refused when any one is not, since the
 * system may connect to whichever it likes. An IP literal is judged as it is, without asking DNS.
 */
export async function checkedAddresses(
  hostname: string,
  allowPrivate: boolean,
  resolve: Resolver,
): Promise<CheckedAddresses> {
  const host = bareHost(hostname);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal === 4 || literal === 6) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code = error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "";
      return unresolved(host, code && !message.includes(code) ? `${message} (${code})` : message);
    }
    if (addresses.length === 0) return unresolved(host, "no addresses");
  }
  for (const { address } of addresses) {
    const verdict = judgeAddress(address, allowPrivate);
    if (verdict.allowed) continue;
    const where = literal ? address : `${host} resolves to ${address}, which`;
    return verdict.tier === "always"
      ? refusal("forbidden_address", `${where} is ${verdict.what}; outbound requests never go there.`)
      : refusal(
          "private_address",
          `${where} is ${verdict.what}; outbound requests go there only with OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on.`,
        );
  }
  return { outcome: "checked", addresses };
}

function unresolved(host: string, detail: string): OutboundFailure {
  return { outcome: "failed", kind: "unresolved", detail, reason: `${host} could not be resolved (${detail}).` };
}
