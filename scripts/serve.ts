// `npm run serve`: checks the configuration, applies pending migrations, then starts the built console and API.
import { spawn } from "node:child_process";
import { prepareDatabase } from "./prepare-database";
import { parseEnv, EnvError } from "../lib/config/env";

function main(): void {
  const config = parseEnv(process.env);
  prepareDatabase(config.DATABASE_URL);
  const args = ["next", "start", "-p", String(config.PORT)];
  if (config.HOSTNAME) args.push("-H", config.HOSTNAME);
  const server = spawn("npx", args, { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

try {
  main();
} catch (error) {
  console.error(error instanceof EnvError || error instanceof Error ? error.message : String(error));
  process.exit(1);
}
