// Password hashing with scrypt (memory-hard, in Node's standard library): "scrypt$N$r$p$salt$hash".
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/** Longer passwords are refused before any hashing: a megabyte "password" must not cost the server more than a guess. */
export const MAX_PASSWORD_LENGTH = 256;

/**
 * A hash no password matches, with today's cost, for the sign-in paths that have no real hash to check (an unknown or
 * disabled account, a refused attempt): they verify against it so every answer costs one hash verification.
 */
export const UNMATCHABLE_HASH = "scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { ...cost, maxmem: 256 * cost.N * cost.r }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new RangeError(`A password may have at most ${MAX_PASSWORD_LENGTH} characters.`);
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await derive(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
