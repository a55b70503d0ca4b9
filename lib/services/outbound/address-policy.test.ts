// Which addresses an outbound request may reach, row by row: public unicast always, the private ranges only with
// OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on, metadata and the like never; IPv6 and IPv4-mapped spellings judged as what they
// reach.
import { describe, expect, it } from "vitest";
import { isLoopbackName, judgeAddress } from "./address-policy";

type Row = [address: string, off: "allowed" | "private" | "always", on: "allowed" | "always", what: RegExp | null];

const rows: Row[] = [
  // Public unicast
  ["93.184.216.34", "allowed", "allowed", null],
  ["1.1.1.1", "allowed", "allowed", null],
  ["2606:4700:4700::1111", "allowed", "allowed", null],
  // NAT64 of a public address reaches that address
  ["64:ff9b::5db8:d822", "allowed", "allowed", null],
  // Loopback: refused unless allowed (the demo world's providers listen there)
  ["127.0.0.1", "private", "allowed", /loopback/],
  ["127.9.9.9", "private", "allowed", /loopback/],
  ["::1", "private", "allowed", /loopback/],
  ["::ffff:127.0.0.1", "private", "allowed", /loopback.*127\.0\.0\.1/],
  ["::ffff:7f00:1", "private", "allowed", /loopback/],
  // RFC 1918, CGNAT, link-local, unique-local, reserved
  ["10.0.0.1", "private", "allowed", /private/],
  ["172.16.5.4", "private", "allowed", /private/],
  ["172.31.255.255", "private", "allowed", /private/],
  ["192.168.1.1", "private", "allowed", /private/],
  ["::ffff:10.0.0.1", "private", "allowed", /private.*10\.0\.0\.1/],
  ["::ffff:c0a8:101", "private", "allowed", /private.*192\.168\.1\.1/],
  ["64:ff9b::a00:1", "private", "allowed", /private.*10\.0\.0\.1/],
  ["100.64.0.1", "private", "allowed", /carrier-grade NAT/],
  ["100.127.255.254", "private", "allowed", /carrier-grade NAT/],
  ["169.254.1.1", "private", "allowed", /link-local/],
  ["fe80::1", "private", "allowed", /link-local/],
  ["fe80::1%eth0", "private", "allowed", /link-local/],
  ["fc00::1", "private", "allowed", /unique-local/],
  ["fd12:3456:789a::1", "private", "allowed", /unique-local/],
  ["fec0::1", "private", "allowed", /site-local/],
  ["192.0.2.2", "private", "allowed", /reserved/],
  ["198.18.0.1", "private", "allowed", /reserved/],
  ["240.0.0.1", "private", "allowed", /reserved/],
  ["2001:db8::1", "private", "allowed", /reserved|Teredo/],
  ["::7f00:1", "private", "allowed", /IPv4-compatible/],
  ["2002:a00:1::1", "private", "allowed", /6to4/],
  // Never, whatever the setting
  ["169.254.169.254", "always", "always", /metadata/],
  ["::ffff:169.254.169.254", "always", "always", /metadata.*169\.254\.169\.254/],
  ["::ffff:a9fe:a9fe", "always", "always", /metadata/],
  ["64:ff9b::a9fe:a9fe", "always", "always", /metadata/],
  ["fd00:ec2::254", "always", "always", /metadata/],
  ["fd00:ec2:0:0:0:0:0:254", "always", "always", /metadata/],
  ["0.0.0.0", "always", "always", /unspecified/],
  ["0.1.2.3", "always", "always", /unspecified/],
  ["::", "always", "always", /unspecified/],
  ["::ffff:0.0.0.0", "always", "always", /unspecified/],
  ["224.0.0.1", "always", "always", /multicast/],
  ["ff02::1", "always", "always", /multicast/],
  ["255.255.255.255", "always", "always", /broadcast/],
  ["not-an-ip", "always", "always", /not an IP address/],
];

describe("judgeAddress", () => {
  it.each(rows)("%s: %s when private addresses are off, %s when on", (address, off, on, what) => {
    const closed = judgeAddress(address, false);
    const open = judgeAddress(address, true);
    if (off === "allowed") expect(closed).toEqual({ allowed: true });
    else {
      expect(closed).toMatchObject({ allowed: false, tier: off });
      if (!closed.allowed) expect(closed.what).toMatch(what ?? /./);
    }
    if (on === "allowed") expect(open).toEqual({ allowed: true });
    else expect(open).toMatchObject({ allowed: false, tier: "always" });
  });
});

describe("isLoopbackName", () => {
  it.each([
    ["localhost", true],
    ["LOCALHOST.", true],
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["[::1]", true],
    ["[::ffff:7f00:1]", true],
    ["api.localhost", false],
    ["10.0.0.1", false],
    ["example.com", false],
    ["[fe80::1]", false],
  ])("%s: %s", (host, loopback) => {
    expect(isLoopbackName(host)).toBe(loopback);
  });
});
