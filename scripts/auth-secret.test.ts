// The session secret: a configured one must be 32 characters or more (the same sentence as lib/platform/config/env.ts), a
// generated one is written 0600 beside the SQLite database and kept.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../lib/platform/config/env";
import { MIN_AUTH_SECRET_LENGTH, resolveAuthSecret } from "./auth-secret";

let root: string;
let savedSecret: string | undefined;
let savedUmask: number;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-secret-"));
  savedSecret = process.env.NEXTAUTH_SECRET;
  savedUmask = process.umask();
  delete process.env.NEXTAUTH_SECRET;
});

afterEach(() => {
  if (savedSecret === undefined) delete process.env.NEXTAUTH_SECRET;
  else process.env.NEXTAUTH_SECRET = savedSecret;
  process.umask(savedUmask);
  fs.rmSync(root, { recursive: true, force: true });
});

const databaseUrl = () => `file:${path.join(root, "opledger.db")}`;
const secretFile = () => path.join(root, "nextauth-secret");
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe("resolveAuthSecret", () => {
  it("generates a secret of at least 32 characters once, 0600 even under a permissive umask, and keeps it", () => {
    process.umask(0o022);
    const first = resolveAuthSecret(databaseUrl());
    expect(first.length).toBeGreaterThanOrEqual(MIN_AUTH_SECRET_LENGTH);
    expect(modeOf(secretFile())).toBe(0o600);
    expect(resolveAuthSecret(databaseUrl())).toBe(first);
    // The generated secret passes the same validation as a configured one.
    expect(parseEnv({ NEXTAUTH_SECRET: first }).NEXTAUTH_SECRET).toBe(first);
  });

  it("tightens a secret file left readable by others", () => {
    fs.writeFileSync(secretFile(), "x".repeat(43), { mode: 0o644 });
    fs.chmodSync(secretFile(), 0o644);
    expect(resolveAuthSecret(databaseUrl())).toBe("x".repeat(43));
    expect(modeOf(secretFile())).toBe(0o600);
  });

  it("refuses a configured secret shorter than 32 characters with the sentence lib/platform/config/env.ts uses", () => {
    process.env.NEXTAUTH_SECRET = "too short";
    const fromEnv = (() => {
      try {
        parseEnv({ NEXTAUTH_SECRET: "too short" });
      } catch (error) {
        return error;
      }
    })();
    expect(fromEnv).toBeInstanceOf(EnvError);
    expect(() => resolveAuthSecret(databaseUrl())).toThrow((fromEnv as Error).message);
    expect((fromEnv as Error).message).toBe("opledger cannot start: NEXTAUTH_SECRET must be at least 32 characters.");
  });

  it("refuses a secret file shorter than 32 characters and says how to recover", () => {
    fs.writeFileSync(secretFile(), "short\n", { mode: 0o600 });
    expect(() => resolveAuthSecret(databaseUrl())).toThrow(
      /session secret in .*nextauth-secret must be at least 32 characters; delete the file/,
    );
  });

  it("uses a configured secret as set, and requires one with PostgreSQL", () => {
    process.env.NEXTAUTH_SECRET = "a configured secret of 32 chars or more";
    expect(resolveAuthSecret(databaseUrl())).toBe("a configured secret of 32 chars or more");
    expect(fs.existsSync(secretFile())).toBe(false);
    delete process.env.NEXTAUTH_SECRET;
    expect(() => resolveAuthSecret("postgresql://localhost/opledger")).toThrow(/NEXTAUTH_SECRET is required/);
  });
});
