// The audit signing key: made by audit-keygen, read back in both of its forms, and refused with one sentence (that never
// repeats the key) when it is anything but an Ed25519 private key.
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateSigningKey, parseSigningKey, parseVerifyingKey, SigningKeyError } from "./signing-key";

describe("a generated key pair", () => {
  const made = generateSigningKey();

  it("reads back from the PEM and from the one-line base64, as the same key", () => {
    expect(made.privateKeyBase64).not.toMatch(/\s/);
    const fromPem = parseSigningKey(made.privateKeyPem);
    const fromBase64 = parseSigningKey(made.privateKeyBase64);
    expect(fromPem.keyId).toBe(made.keyId);
    expect(fromBase64.keyId).toBe(made.keyId);
    expect(made.keyId).toMatch(/^[0-9a-f]{64}$/);
  });

  it("gives a public key that reads back in both forms, with the same id", () => {
    expect(parseVerifyingKey(made.publicKeyPem).keyId).toBe(made.keyId);
    expect(parseVerifyingKey(made.publicKeyBase64).keyId).toBe(made.keyId);
    // Wrapped base64, as a copy from a terminal may be.
    expect(parseVerifyingKey(made.publicKeyBase64.replace(/(.{20})/g, "$1\n")).keyId).toBe(made.keyId);
  });

  it("is a new pair every time", () => {
    expect(generateSigningKey().keyId).not.toBe(made.keyId);
  });
});

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ed = generateSigningKey();

describe("OPLEDGER_AUDIT_SIGNING_KEY that is not an Ed25519 private key", () => {
  it.each([
    ["an RSA private key (PEM)", rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString(), /it is rsa/],
    [
      "an EC private key (base64 DER)",
      ec.privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
      /it is ec/,
    ],
    ["the public key instead of the private one (PEM)", ed.publicKeyPem, /not an Ed25519 private key/],
    ["the public key instead of the private one (base64)", ed.publicKeyBase64, /not an Ed25519 private key/],
    ["a truncated key", ed.privateKeyBase64.slice(0, 30), /not an Ed25519 private key/],
    ["a password", "correct horse battery staple", /not an Ed25519 private key/],
  ])("refuses %s with one sentence that names the variable, not the key", (_, value, why) => {
    let error: unknown;
    try {
      parseSigningKey(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SigningKeyError);
    const message = (error as Error).message;
    expect(message).toMatch(/^OPLEDGER_AUDIT_SIGNING_KEY is not an Ed25519 private key/);
    expect(message).toMatch(why);
    expect(message.split(/\.\s/)).toHaveLength(1);
    for (const line of value.split("\n").filter((l) => l.length > 8 && !l.startsWith("-----")))
      expect(message).not.toContain(line);
  });
});

describe("a public key for verification", () => {
  it("refuses a private key, so it is never copied to where checkpoints are only checked", () => {
    expect(() => parseVerifyingKey(ed.privateKeyPem)).toThrow(/is a private key: give its public half/);
  });

  it("refuses another algorithm's key and anything else", () => {
    expect(() => parseVerifyingKey(rsa.publicKey.export({ type: "spki", format: "pem" }).toString())).toThrow(
      /not an Ed25519 public key \(it is rsa\)/,
    );
    expect(() => parseVerifyingKey("not a key at all")).toThrow(/not an Ed25519 public key/);
  });
});
