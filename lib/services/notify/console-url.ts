// Links into the console for the people a webhook tells: the public URL (NEXTAUTH_URL), else where the server listens.
import { env } from "@/lib/platform/config/env";

export function consoleBaseUrl(): string {
  const { NEXTAUTH_URL, HOSTNAME, PORT } = env();
  if (NEXTAUTH_URL) return NEXTAUTH_URL.replace(/\/+$/, "");
  return `http://${HOSTNAME ?? "localhost"}:${PORT}`;
}

export function consoleUrl(path: string): string {
  return `${consoleBaseUrl()}${path}`;
}
