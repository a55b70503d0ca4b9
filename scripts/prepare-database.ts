// Makes the database ready before the server starts: a writable data directory and every migration applied.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureSqliteDirectory, sqliteFilePath } from "../lib/config/database-url";

function assertWritableDirectory(file: string): void {
  const dir = path.dirname(path.resolve(file));
  try {
    ensureSqliteDirectory(`file:${file}`);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    throw new Error(`opledger cannot start: the data directory ${dir} cannot be created or written to.`);
  }
}

export function prepareDatabase(databaseUrl: string): void {
  const file = sqliteFilePath(databaseUrl);
  if (file) assertWritableDirectory(file);
  const result = spawnSync("npx", ["prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    const detail = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-3).join(" ");
    throw new Error(`opledger cannot start: migrating the database at ${databaseUrl} failed (${detail}).`);
  }
  console.log(`opledger: database ready at ${file ?? databaseUrl.replace(/\/\/[^@]*@/, "//***@")}`);
}
