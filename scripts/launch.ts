// Starts the built Next.js server (console, API and, through instrumentation, the recovery sweep) and forwards signals
// to it.
import { spawn } from "node:child_process";
import path from "node:path";
import type { Env } from "../lib/config/env";
import { resolveAuthSecret } from "./auth-secret";

export function publicUrl(config: Env): string {
  return process.env.NEXTAUTH_URL ?? `http://${config.HOSTNAME ?? "localhost"}:${config.PORT}`;
}

/**
 * scripts/next-server.mjs serves the build and drains on SIGTERM; this process forwards the signal and exits with it.
 */
export function launchServer(config: Env, extraEnv: Record<string, string> = {}): void {
  const server = spawn(process.execPath, [path.join(__dirname, "next-server.mjs")], {
    stdio: "inherit",
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(config.PORT),
      ...(config.HOSTNAME ? { HOSTNAME: config.HOSTNAME } : {}),
      DATABASE_URL: config.DATABASE_URL,
      NEXTAUTH_SECRET: resolveAuthSecret(config.DATABASE_URL),
      NEXTAUTH_URL: publicUrl(config),
      ...extraEnv,
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
