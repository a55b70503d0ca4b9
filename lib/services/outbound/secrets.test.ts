// Which secrets may go where: OPLEDGER_SECRET_* names only (even for a contract stored before the schema said so),
// bound hosts matched exactly, https unless loopback, and a missing variable refused rather than sent empty.
import { describe, expect, it } from "vitest";
import { boundHosts, grantSecret, hostsVariable, type SecretGrant } from "./secrets";

const VALUE = "Bearer sk_live_0123456789abcdef";
const environment = {
  OPLEDGER_SECRET_PAYMENTS: VALUE,
  OPLEDGER_SECRET_PAYMENTS_HOSTS: "api.payments.example, API.Other.Example:8443 ,127.0.0.1,[::1]",
  OPLEDGER_SECRET_FREE: VALUE,
  OPLEDGER_SECRET_NOWHERE: VALUE,
  OPLEDGER_SECRET_NOWHERE_HOSTS: "",
  OPLEDGER_SECRET_BLANK: "  ",
  NEXTAUTH_SECRET: "opl_nextauth_secret_that_must_never_leave",
  DATABASE_URL: "postgresql://user:pw@db/opledger",
  opledger_secret_lower: VALUE,
};

const grant = (name: string, url: string) => grantSecret(name, new URL(url), environment);

/** The reason of a refusal by `rule`; fails on anything else. */
function reasonOf(result: SecretGrant, rule: string): string {
  if ("granted" in result) throw new Error(`expected a refusal by ${rule}, got the secret granted`);
  expect(result.rule).toBe(rule);
  return result.reason;
}

describe("grantSecret", () => {
  it.each([
    "NEXTAUTH_SECRET",
    "DATABASE_URL",
    "OPLEDGER_SECRET_",
    "opledger_secret_lower",
    "OPLEDGER_SECRET_PAYMENTS_HOSTS",
    " OPLEDGER_SECRET_PAYMENTS",
    "OPLEDGER_SECRET_PAYMENTS\n",
    "XOPLEDGER_SECRET_PAYMENTS",
  ])("refuses %j: not an OPLEDGER_SECRET_* variable, whatever a stored contract says", (name) => {
    const refused = grant(name, "https://api.payments.example/x");
    expect(refused).toMatchObject({ outcome: "refused", rule: "secret_name" });
    expect(JSON.stringify(refused)).not.toContain("opl_nextauth_secret");
  });

  it("refuses a variable that is not set, or blank, instead of sending no credentials", () => {
    expect(reasonOf(grant("OPLEDGER_SECRET_UNSET", "https://x.example/"), "secret_missing")).toContain(
      "OPLEDGER_SECRET_UNSET is not set",
    );
    expect(grant("OPLEDGER_SECRET_BLANK", "https://x.example/")).toMatchObject({ rule: "secret_missing" });
  });

  it("names the bound hosts and the host asked for when they differ", () => {
    const refused = grant("OPLEDGER_SECRET_PAYMENTS", "https://evil.test/steal");
    expect(refused).toEqual({
      outcome: "refused",
      rule: "secret_host",
      reason:
        "OPLEDGER_SECRET_PAYMENTS may only be sent to api.payments.example, api.other.example, 127.0.0.1, ::1; " +
        "this request goes to evil.test.",
    });
  });

  it.each([
    ["https://api.payments.example/v1", true],
    ["https://API.PAYMENTS.EXAMPLE./v1", true],
    ["https://api.payments.example:9443/v1", true],
    ["https://api.other.example/v1", true],
    ["http://127.0.0.1:3999/v1", true],
    ["http://[::1]:3999/v1", true],
    // Exact hosts only: a subdomain, a parent domain or a look-alike is another host.
    ["https://eu.api.payments.example/v1", false],
    ["https://payments.example/v1", false],
    ["https://api.payments.example.evil.test/v1", false],
    ["https://api-payments.example/v1", false],
    ["http://127.0.0.2:3999/v1", false],
  ])("binding: %s granted %s", (url, granted) => {
    const result = grant("OPLEDGER_SECRET_PAYMENTS", url);
    if (granted) expect(result).toEqual({ granted: true, name: "OPLEDGER_SECRET_PAYMENTS", value: VALUE });
    else expect(result).toMatchObject({ outcome: "refused", rule: "secret_host" });
  });

  it("refuses every host when the binding is set but empty", () => {
    expect(reasonOf(grant("OPLEDGER_SECRET_NOWHERE", "https://api.payments.example/"), "secret_host")).toContain(
      "no host (OPLEDGER_SECRET_NOWHERE_HOSTS is empty)",
    );
  });

  it("lets an unbound secret go to any host, over https", () => {
    expect(grant("OPLEDGER_SECRET_FREE", "https://anywhere.example/")).toMatchObject({ granted: true });
  });

  it.each([
    ["http://api.example/x", false],
    ["http://10.0.0.1/x", false],
    ["http://api.localhost/x", false],
    ["http://localhost:3999/x", true],
    ["http://127.0.0.1/x", true],
    ["http://127.8.0.1/x", true],
    ["http://[::1]/x", true],
  ])("https rule: %s granted %s", (url, granted) => {
    const result = grant("OPLEDGER_SECRET_FREE", url);
    if (granted) expect(result).toMatchObject({ granted: true });
    else
      expect(reasonOf(result, "secret_https")).toMatch(
        /^OPLEDGER_SECRET_FREE is only sent over https \(or to a loopback address\)/,
      );
  });
});

describe("boundHosts", () => {
  it("is null when unbound, and normalizes entries as URLs normalize hosts", () => {
    expect(boundHosts("OPLEDGER_SECRET_FREE", environment)).toBeNull();
    expect(
      boundHosts("OPLEDGER_SECRET_X", { OPLEDGER_SECRET_X_HOSTS: "Bücher.example, 0x7f.1, [::FFFF:127.0.0.1]" }),
    ).toEqual(["xn--bcher-kva.example", "127.0.0.1", "::ffff:7f00:1"]);
    expect(hostsVariable("OPLEDGER_SECRET_X")).toBe("OPLEDGER_SECRET_X_HOSTS");
  });
});
