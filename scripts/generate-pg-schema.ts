// `npx tsx scripts/generate-pg-schema.ts [--check]`: writes prisma/postgresql/schema.prisma from prisma/schema.prisma,
// or only compares.
import fs from "node:fs";
import path from "node:path";
import { POSTGRES_SCHEMA, SOURCE_SCHEMA, postgresSchemaFrom } from "./pg-schema";

function main(root: string, checkOnly: boolean): void {
  const expected = postgresSchemaFrom(fs.readFileSync(path.join(root, SOURCE_SCHEMA), "utf8"));
  const target = path.join(root, POSTGRES_SCHEMA);
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : null;
  if (current === expected) {
    console.log(`${POSTGRES_SCHEMA} is up to date`);
    return;
  }
  if (checkOnly) {
    console.error(`${POSTGRES_SCHEMA} is out of date: run \`npx tsx scripts/generate-pg-schema.ts\`.`);
    process.exit(1);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, expected);
  console.log(`wrote ${POSTGRES_SCHEMA}`);
}

main(path.resolve(__dirname, ".."), process.argv.includes("--check"));
