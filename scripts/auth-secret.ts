// The session-signing secret: NEXTAUTH_SECRET if set; for a single SQLite instance, one generated once and kept beside
// the database, readable by its owner only.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DATA_FILE_MODE, restrictToOwner, sqliteFilePath } from "../lib/platform/config/database-url";

/** The same floor lib/platform/config/env.ts sets on NEXTAUTH_SECRET. */
export const MIN_AUTH_SECRET_LENGTH = 32;

function tooShort(where: string, remedy = ""): Error {
  return new Error(`opledger cannot start: ${where} must be at least ${MIN_AUTH_SECRET_LENGTH} characters${remedy}.`);
}

export function resolveAuthSecret(databaseUrl: string): string {
  const configured = process.env.NEXTAUTH_SECRET;
  // Measured as lib/platform/config/env.ts measures it (trimmed), but passed on as set: next-auth reads the variable as is.
  if (configured && configured.trim().length > 0) {
    if (configured.trim().length < MIN_AUTH_SECRET_LENGTH) throw tooShort("NEXTAUTH_SECRET");
    return configured;
  }
  const file = sqliteFilePath(databaseUrl);
  if (!file) {
    throw new Error(
      "opledger cannot start: NEXTAUTH_SECRET is required with PostgreSQL, and every instance must share the same value.",
    );
  }
  const secretFile = path.join(path.dirname(path.resolve(file)), "nextauth-secret");
  if (!fs.existsSync(secretFile)) {
    // 32 random bytes are 43 base64url characters. `wx`: two starts racing never overwrite each other's secret.
    fs.writeFileSync(secretFile, randomBytes(32).toString("base64url"), { mode: DATA_FILE_MODE, flag: "wx" });
  }
  // A file written by an older version, or copied in with a looser mode, is tightened rather than trusted as is.
  restrictToOwner(secretFile);
  const secret = fs.readFileSync(secretFile, "utf8").trim();
  if (secret.length < MIN_AUTH_SECRET_LENGTH) {
    throw tooShort(
      `the session secret in ${secretFile}`,
      "; delete the file to generate a new one (this signs everyone out)",
    );
  }
  return secret;
}
