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
