// Vitest global setup: migrates one template SQLite database per run; each test file copies it (fast, no row deletes).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-test-"));
  const template = path.join(dir, "template.db");
  const result = spawnSync("npx", ["prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: `file:${template}` },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`migrating the test template failed:\n${result.stdout}\n${result.stderr}`);
  process.env.OPLEDGER_TEST_TEMPLATE_DB = template;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
