// The Ed25519 key pair that signs audit checkpoints: made, read and named here; the private half lives outside the
// database (OPLEDGER_AUDIT_SIGNING_KEY), the public half with whoever verifies.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";

/** A key the checkpoint signer can use: the private key, its public half and the id that names it. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  keyId: string;
}

/** A public key that checkpoints are verified with, and its id. */
export interface VerifyingKey {
  publicKey: KeyObject;
  keyId: string;
}

/** A key that cannot be used; the message is one sentence and never contains the key. */
export class SigningKeyError extends Error {
  override name = "SigningKeyError";
}

/** sha256 hex of the public key's SPKI DER: names a key in checkpoints without revealing anything. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
}

const PEM = /-----BEGIN ([A-Z0-9 ]+)-----/;

/** The DER bytes of a single-line (or wrapped) base64 text, or null when it is not base64. */
function base64Der(text: string): Buffer | null {
  const compact = text.replace(/\s+/g, "");
  if (compact.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return null;
  return Buffer.from(compact, "base64");
}

/**
 * Reads OPLEDGER_AUDIT_SIGNING_KEY: an Ed25519 private key as PKCS#8 PEM or as the base64 of its DER (one line, for .env
 * files). Throws SigningKeyError naming what is wrong, never the key.
 */
export function parseSigningKey(text: string, source = "OPLEDGER_AUDIT_SIGNING_KEY"): SigningKey {
  const trimmed = text.trim();
  let privateKey: KeyObject;
  try {
    const pem = PEM.exec(trimmed);
    if (pem) {
      if (pem[1] !== "PRIVATE KEY") throw new Error(`a PEM ${pem[1]}`);
      privateKey = createPrivateKey({ key: trimmed, format: "pem" });
    } else {
      const der = base64Der(trimmed);
      if (!der) throw new Error("neither PEM nor base64");
      privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
    }
  } catch {
    throw new SigningKeyError(
      `${source} is not an Ed25519 private key: give the PKCS#8 PEM or its base64 DER that \`npm run opledger -- audit-keygen\` prints.`,
    );
  }
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw new SigningKeyError(
      `${source} is not an Ed25519 private key (it is ${privateKey.asymmetricKeyType ?? "of an unknown type"}): ` +
        "make one with `npm run opledger -- audit-keygen`.",
    );
  }
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: keyIdOf(publicKey) };
}

/**
 * Reads a public key for verification: SPKI PEM or the base64 of its DER. A private key is refused, so that it is never
 * copied to where checkpoints are only verified.
 */
export function parseVerifyingKey(text: string, source = "the public key"): VerifyingKey {
  const trimmed = text.trim();
  const pem = PEM.exec(trimmed);
  if (pem?.[1]?.includes("PRIVATE")) {
    throw new SigningKeyError(
      `${source} is a private key: give its public half (the public key that audit-keygen prints), and keep the private key on the server.`,
    );
  }
  let publicKey: KeyObject;
  try {
    if (pem) publicKey = createPublicKey({ key: trimmed, format: "pem" });
    else {
      const der = base64Der(trimmed);
      if (!der) throw new Error("neither PEM nor base64");
      publicKey = createPublicKey({ key: der, format: "der", type: "spki" });
    }
  } catch {
    throw new SigningKeyError(
      `${source} is not an Ed25519 public key: give the SPKI PEM or its base64 DER that \`npm run opledger -- audit-keygen\` prints.`,
    );
  }
  if (publicKey.asymmetricKeyType !== "ed25519") {
    throw new SigningKeyError(
      `${source} is not an Ed25519 public key (it is ${publicKey.asymmetricKeyType ?? "of an unknown type"}).`,
    );
  }
  return { publicKey, keyId: keyIdOf(publicKey) };
}

/** A new key pair in the forms the CLI hands out: PEM files, and single base64 lines for .env files and arguments. */
export interface GeneratedSigningKey {
  keyId: string;
  privateKeyPem: string;
  privateKeyBase64: string;
  publicKeyPem: string;
  publicKeyBase64: string;
}

export function generateSigningKey(): GeneratedSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    keyId: keyIdOf(publicKey),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    privateKeyBase64: privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    publicKeyBase64: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
  };
}
