// The client address sign-in throttling keys on: which X-Forwarded-For entry is trusted, and how it is normalised.
import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-address";

describe("clientAddress", () => {
  it.each([
    ["no header", null, 0, null],
    ["an empty header", " , ", 0, null],
    ["the address Next.js wrote from the socket", "127.0.0.1", 0, "127.0.0.1"],
    ["no proxy: the last entry, never the ones before it", "6.6.6.6, 203.0.113.7", 0, "203.0.113.7"],
    ["one proxy: the entry it appended", "6.6.6.6, 203.0.113.7", 1, "203.0.113.7"],
    ["two proxies: the second entry from the right", "6.6.6.6, 203.0.113.7, 10.0.0.2", 2, "203.0.113.7"],
    ["fewer entries than proxies: the leftmost", "203.0.113.7", 3, "203.0.113.7"],
    ["an IPv4-mapped IPv6 address counts as IPv4", "::ffff:192.0.2.1", 0, "192.0.2.1"],
    ["an IPv6 address by its /64", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", 0, "2001:db8:1:2::/64"],
    ["IPv6 in brackets with a port", "[2001:db8::1]:4711", 0, "2001:db8:0:0::/64"],
    ["IPv4 with a port", "192.0.2.1:4711", 0, "192.0.2.1"],
    ["an IPv6 zone is dropped", "fe80::1%eth0", 0, "fe80:0:0:0::/64"],
    ["something that is not an address", "unknown", 0, null],
    ["a long junk value", "x".repeat(5000), 0, null],
  ])("%s", (_, header, proxies, expected) => {
    expect(clientAddress(header, proxies)).toBe(expected);
  });
});
