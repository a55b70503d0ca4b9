// Links into the console for the people a webhook tells: the public URL (NEXTAUTH_URL), else where the server listens.
import { env } from "@/lib/config/env";

export function consoleBaseUrl(): string {
  const configured = process.env.NEXTAUTH_URL?.trim();
  if (configured) return configured.replace(/\/+$/, "");
  const { HOSTNAME, PORT } = env();
  return `http://${HOSTNAME ?? "localhost"}:${PORT}`;
}

export function consoleUrl(path: string): string {
  return `${consoleBaseUrl()}${path}`;
}
