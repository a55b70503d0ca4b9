// Derives the PostgreSQL Prisma schema from the SQLite one: one data model, two providers (Prisma fixes the provider
// per file).
import path from "node:path";

export const SOURCE_SCHEMA = path.join("prisma", "schema.prisma");
export const POSTGRES_SCHEMA = path.join("prisma", "postgresql", "schema.prisma");

const HEADER =
  "// GENERATED from prisma/schema.prisma by scripts/generate-pg-schema.ts: do not edit; edit the source and " +
  "run `npx tsx scripts/generate-pg-schema.ts`.\n";

/** Replaces exactly one match, so a reshaped source schema fails here instead of yielding a half-converted copy. */
function replaceOnce(text: string, pattern: RegExp, replacement: string, what: string): string {
  const count = text.match(new RegExp(pattern.source, "g"))?.length ?? 0;
  if (count !== 1) {
    throw new Error(`${SOURCE_SCHEMA}: expected exactly one ${what}, found ${count}; update scripts/pg-schema.ts.`);
  }
  return text.replace(pattern, replacement);
}

/** The PostgreSQL schema for the SQLite schema: only the datasource provider and the client's output folder differ. */
export function postgresSchemaFrom(source: string): string {
  let schema = replaceOnce(
    source,
    /(datasource db \{[^}]*?provider\s*=\s*)"sqlite"/,
    '$1"postgresql"',
    'datasource provider "sqlite"',
  );
  schema = replaceOnce(
    schema,
    /(\boutput\s*=\s*)"\.\.\/lib\/platform\/generated\/prisma"/,
    '$1"../../lib/platform/generated/prisma-pg"',
    'generator output "../lib/platform/generated/prisma"',
  );
  return HEADER + schema;
}
