// Fails when prisma/postgresql/schema.prisma (or the generated PostgreSQL client) drifts from prisma/schema.prisma.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { POSTGRES_SCHEMA, SOURCE_SCHEMA, postgresSchemaFrom } from "./pg-schema";

const read = (file: string): string => fs.readFileSync(file, "utf8");

/** The models a generated client was built from, as Prisma embeds them. */
function runtimeDataModel(clientDir: string): string {
  const source = read(path.join(clientDir, "internal", "class.ts"));
  const model = /config\.runtimeDataModel = JSON\.parse\((".*")\)/.exec(source)?.[1];
  if (!model) throw new Error(`no runtimeDataModel in ${clientDir}; was it generated?`);
  return model;
}

describe("the PostgreSQL schema", () => {
  it("is exactly what scripts/generate-pg-schema.ts makes of prisma/schema.prisma", () => {
    expect(read(POSTGRES_SCHEMA), "run `npx tsx scripts/generate-pg-schema.ts`").toBe(
      postgresSchemaFrom(read(SOURCE_SCHEMA)),
    );
  });

  it("differs from the source only in provider and client output", () => {
    const source = read(SOURCE_SCHEMA).split("\n");
    const generated = read(POSTGRES_SCHEMA).split("\n").slice(1);
    const changed = source.flatMap((line, i) =>
      line === generated[i] ? [] : [`${line.trim()} -> ${generated[i]?.trim()}`],
    );
    expect(changed).toEqual([
      'output     = "../lib/platform/generated/prisma" -> output     = "../../lib/platform/generated/prisma-pg"',
      'provider = "sqlite" -> provider = "postgresql"',
    ]);
  });

  it("refuses a source it cannot convert instead of writing a half-converted copy", () => {
    expect(() => postgresSchemaFrom(read(SOURCE_SCHEMA).replace('provider = "sqlite"', 'provider = "mysql"'))).toThrow(
      /datasource provider "sqlite"/,
    );
  });

  it("gives both generated clients the same models, which lets lib/platform/db/prisma.ts type the PostgreSQL client as SQLite's", () => {
    expect(
      runtimeDataModel(path.join("lib", "platform", "generated", "prisma-pg")),
      "regenerate both clients: npm run postinstall",
    ).toBe(runtimeDataModel(path.join("lib", "platform", "generated", "prisma")));
  });
});
