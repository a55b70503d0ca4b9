// `npm run db:migrate`: applies pending migrations to DATABASE_URL, whichever engine it names.
import { parseEnv } from "../lib/platform/config/env";
import { prepareDatabase } from "./prepare-database";

try {
  prepareDatabase(parseEnv(process.env).DATABASE_URL);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
