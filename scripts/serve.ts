// `npm run serve`: checks the configuration, applies pending migrations, then starts the built console and API (on
// 127.0.0.1 unless HOSTNAME says otherwise).
import { EnvError, parseEnv } from "../lib/platform/config/env";
import { launchServer } from "./launch";
import { createFilesOwnerOnly, prepareDatabase } from "./prepare-database";

try {
  const config = parseEnv(process.env);
  createFilesOwnerOnly();
  prepareDatabase(config.DATABASE_URL);
  launchServer(config);
} catch (error) {
  console.error(error instanceof EnvError || error instanceof Error ? error.message : String(error));
  process.exit(1);
}
