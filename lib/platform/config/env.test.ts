// The environment's rules for the variables issue #16 added: each bad value names its variable, and nothing starts.
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

describe("parseEnv", () => {
  it("gives the defaults of README's table", () => {
    expect(parseEnv({})).toMatchObject({
      OPLEDGER_TRUSTED_PROXIES: 0,
      OPLEDGER_OUTBOUND_ALLOW_PRIVATE: "off",
      OPLEDGER_FOUR_EYES: "on",
      OPLEDGER_AUDIT_CHECKPOINT_EVERY: 1000,
      OPLEDGER_AUDIT_CHECKPOINT_INTERVAL_MS: 60_000,
    });
  });

  it.each([
    ["OPLEDGER_TRUSTED_PROXIES", " 2 ", 2],
    ["OPLEDGER_TRUSTED_PROXIES", "10", 10],
    ["OPLEDGER_OUTBOUND_ALLOW_PRIVATE", "on", "on"],
  ])("reads %s=%j", (name, value, expected) => {
    expect(parseEnv({ [name]: value })[name as keyof ReturnType<typeof parseEnv>]).toBe(expected);
  });

  it.each([
    ["OPLEDGER_TRUSTED_PROXIES", "-1"],
    ["OPLEDGER_TRUSTED_PROXIES", "1.5"],
    ["OPLEDGER_TRUSTED_PROXIES", "eleven"],
    ["OPLEDGER_TRUSTED_PROXIES", "11"],
    ["OPLEDGER_OUTBOUND_ALLOW_PRIVATE", "yes"],
    ["NEXTAUTH_SECRET", "too short to sign sessions"],
    ["OPLEDGER_ADMIN_PASSWORD", "x".repeat(257)],
    ["OPLEDGER_AUDIT_CHECKPOINT_EVERY", "0"],
  ])("refuses %s=%j with a sentence naming it", (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(EnvError);
    expect(() => parseEnv({ [name]: value })).toThrow(new RegExp(name));
  });
});

describe("single sign-on and the public URL", () => {
  const trio = {
    OPLEDGER_OIDC_ISSUER: "https://id.example.test/realms/ops",
    OPLEDGER_OIDC_CLIENT_ID: "opledger",
    OPLEDGER_OIDC_CLIENT_SECRET: "s3cret",
  };

  it("takes all three OIDC variables, or none", () => {
    expect(parseEnv(trio)).toMatchObject(trio);
    expect(parseEnv({}).OPLEDGER_OIDC_ISSUER).toBeUndefined();
  });

  it("refuses part of the trio, naming what is missing", () => {
    const { OPLEDGER_OIDC_CLIENT_SECRET: _secret, ...partial } = trio;
    expect(() => parseEnv(partial)).toThrow(/OPLEDGER_OIDC_CLIENT_SECRET must be set with/);
  });

  it.each([
    ["OPLEDGER_OIDC_ISSUER", "id.example.test"],
    ["NEXTAUTH_URL", "ftp://opledger.example.test"],
    ["NEXTAUTH_URL", "not a url"],
  ])("refuses %s=%j as a URL", (name, value) => {
    expect(() => parseEnv({ ...trio, [name]: value })).toThrow(new RegExp(`${name} must be an http\\(s\\) URL`));
  });
});

describe("the console's trace link template", () => {
  it("takes an http(s) URL with {traceId} in it, and nothing", () => {
    const template = "https://jaeger.example.test/trace/{traceId}?uiFind={traceId}";
    expect(parseEnv({ OPLEDGER_TRACE_URL: ` ${template} ` }).OPLEDGER_TRACE_URL).toBe(template);
    expect(parseEnv({ OPLEDGER_TRACE_URL: "" }).OPLEDGER_TRACE_URL).toBeUndefined();
    expect(parseEnv({}).OPLEDGER_TRACE_URL).toBeUndefined();
  });

  it("refuses at start-up, naming OPLEDGER_TRACE_URL, a template without {traceId} or not an http(s) URL", () => {
    const refused: [string, RegExp][] = [
      ["https://jaeger.example.test/trace/", /OPLEDGER_TRACE_URL must contain \{traceId\}/],
      ["javascript:alert('{traceId}')", /OPLEDGER_TRACE_URL must be an http\(s\) URL/],
      ["jaeger.example.test/trace/{traceId}", /OPLEDGER_TRACE_URL must be an http\(s\) URL/],
    ];
    for (const [value, message] of refused) {
      expect(() => parseEnv({ OPLEDGER_TRACE_URL: value })).toThrow(EnvError);
      expect(() => parseEnv({ OPLEDGER_TRACE_URL: value })).toThrow(message);
    }
  });
});
