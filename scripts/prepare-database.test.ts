// `npm start` and `npm run serve` prepare SQLite under an owner-only umask: the data directory they create is 0700,
// the migrated database 0600, and a database an older version left 0644 is tightened at the next start.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createFilesOwnerOnly, prepareDatabase } from "./prepare-database";

let root: string;
let savedUmask: number;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-prepare-"));
  savedUmask = process.umask();
  vi.spyOn(console, "log").mockImplementation(() => {});
});

afterEach(() => {
  process.umask(savedUmask);
  vi.restoreAllMocks();
  fs.rmSync(root, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

it("creates the data directory 0700 and the database 0600, and tightens a database left 0644", () => {
  process.umask(0o022);
  createFilesOwnerOnly();
  const file = path.join(root, "data", "opledger.db");
  prepareDatabase(`file:${file}`);
  expect(modeOf(path.dirname(file))).toBe(0o700);
  expect(modeOf(file)).toBe(0o600);

  // As an older version, or `prisma migrate deploy` from a shell, would have left it.
  fs.chmodSync(file, 0o644);
  prepareDatabase(`file:${file}`);
  expect(modeOf(file)).toBe(0o600);
  expect(console.log).toHaveBeenCalledWith(`opledger: made readable by their owner only (0600): ${file}`);
}, 120_000);
