// Starts the built Next.js server (console, API and, through instrumentation, the recovery sweep) and forwards signals
// to it; it listens on loopback unless HOSTNAME says otherwise.
import { spawn } from "node:child_process";
import path from "node:path";
import ipaddr from "ipaddr.js";
import type { Env } from "../lib/platform/config/env";
import { resolveAuthSecret } from "./auth-secret";

/** Where the server listens when HOSTNAME is not set: this machine only. */
export const DEFAULT_LISTEN_HOST = "127.0.0.1";

export function listenHost(config: Pick<Env, "HOSTNAME">): string {
  return config.HOSTNAME ?? DEFAULT_LISTEN_HOST;
}

export function publicUrl(config: Env): string {
  return process.env.NEXTAUTH_URL ?? `http://${config.HOSTNAME ?? "localhost"}:${config.PORT}`;
}

/** Whether only this machine can reach `host`: localhost, 127.0.0.0/8, ::1 (a name other than localhost is not). */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === "loopback";
}

/**
 * The one line printed at start-up when the server is reachable from other machines and its public URL is not https:
 * passwords, session cookies and API keys would then cross the network in clear text. Null when neither is the case.
 */
export function exposureWarning(host: string, url: string): string | null {
  if (isLoopbackHost(host) || url.toLowerCase().startsWith("https://")) return null;
  const where = ["0.0.0.0", "::", "[::]"].includes(host) ? `every network interface (HOSTNAME=${host})` : host;
  return (
    `opledger: warning: listening on ${where} over plain http (public URL ${url}): passwords, session cookies and ` +
    `API keys cross the network unencrypted. Put an https proxy in front and set NEXTAUTH_URL=https://..., or unset ` +
    `HOSTNAME to listen on ${DEFAULT_LISTEN_HOST} only.`
  );
}

/**
 * scripts/next-server.mjs serves the build and drains on SIGTERM; this process forwards the signal and exits with it.
 */
export function launchServer(config: Env, extraEnv: Record<string, string> = {}): void {
  const host = listenHost(config);
  const url = publicUrl(config);
  const warning = exposureWarning(host, url);
  if (warning) console.warn(warning);
  const server = spawn(process.execPath, [path.join(__dirname, "next-server.mjs")], {
    // The IPC channel tells the server when this process is gone without having passed a signal on (tsx SIGKILLs it
    // when it acknowledges a relayed SIGTERM more slowly than 30 ms, as on a busy machine): it then drains and exits.
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(config.PORT),
      HOSTNAME: host,
      DATABASE_URL: config.DATABASE_URL,
      NEXTAUTH_SECRET: resolveAuthSecret(config.DATABASE_URL),
      NEXTAUTH_URL: url,
      ...extraEnv,
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
