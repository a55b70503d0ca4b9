// `npm run serve`: checks the configuration, applies pending migrations, then starts the built console and API.
import { EnvError, parseEnv } from "../lib/config/env";
import { launchServer } from "./launch";
import { prepareDatabase } from "./prepare-database";

try {
  const config = parseEnv(process.env);
  prepareDatabase(config.DATABASE_URL);
  launchServer(config);
} catch (error) {
  console.error(error instanceof EnvError || error instanceof Error ? error.message : String(error));
  process.exit(1);
}
