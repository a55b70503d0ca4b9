// The session-signing secret: NEXTAUTH_SECRET if set; for a single SQLite instance, one generated once and kept beside
// the database.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { sqliteFilePath } from "../lib/config/database-url";

export function resolveAuthSecret(databaseUrl: string): string {
  const configured = process.env.NEXTAUTH_SECRET;
  if (configured && configured.length > 0) return configured;
  const file = sqliteFilePath(databaseUrl);
  if (!file) {
    throw new Error(
      "opledger cannot start: NEXTAUTH_SECRET is required with PostgreSQL, and every instance must share the same value.",
    );
  }
  const secretFile = path.join(path.dirname(path.resolve(file)), "nextauth-secret");
  if (!fs.existsSync(secretFile)) {
    fs.writeFileSync(secretFile, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  }
  return fs.readFileSync(secretFile, "utf8").trim();
}
