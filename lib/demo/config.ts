// The demo world's settings, from the environment: where the providers listen, how often faults and crashes happen.
import { z } from "zod";

export const DEFAULT_PROVIDER_PORT = 3999;

/**
 * Holds the Authorization header value the demo payments API requires; lookups read it, contracts name only the
 * variable. An OPLEDGER_SECRET_* name, as every secret a lookup may send
 * (docs/authority.md#secrets-and-outbound-requests).
 */
export const PAYMENTS_AUTH_ENV = "OPLEDGER_SECRET_DEMO_PAYMENTS";

/** The agent id the demo agent plans under, so its operations can be found and resumed. */
export const DEMO_AGENT_ID = "demo-agent";

const demoEnvSchema = z.object({
  OPLEDGER_DEMO_PROVIDER_PORT: z.coerce.number().int().min(1).max(65535).default(DEFAULT_PROVIDER_PORT),
  /** Chance that a provider call meets a random fault. */
  OPLEDGER_DEMO_FAULT_RATE: z.coerce.number().min(0).max(1).default(0.08),
  OPLEDGER_DEMO_AGENT_WORKERS: z.coerce.number().int().min(1).max(32).default(3),
  /** Pause between two tool calls of one worker (a random time up to this). */
  OPLEDGER_DEMO_PACE_MS: z.coerce.number().int().min(0).max(60_000).default(2500),
  /** Mean time between two SIGKILLs of the demo agent; 0 never kills it. */
  OPLEDGER_DEMO_KILL_EVERY_MS: z.coerce.number().int().min(0).max(86_400_000).default(90_000),
  /** Time between two outages of the deployment API (the first starts 20 s after start); 0 for none. */
  OPLEDGER_DEMO_OUTAGE_EVERY_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  OPLEDGER_DEMO_OUTAGE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(75_000),
});

export type DemoEnv = z.infer<typeof demoEnvSchema>;

/** Parses the demo settings; a bad value names the variable. */
export function demoEnv(source: Record<string, string | undefined> = process.env): DemoEnv {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v.trim() !== ""));
  const result = demoEnvSchema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
  throw new Error(`opledger demo cannot start: ${problems.join("; ")}.`);
}

/**
 * Why the demo's providers and a server listening on `serverPort` cannot both start, or null: they would share a port,
 * and one of them would fail with a bare EADDRINUSE.
 */
export function demoPortClash(serverPort: number, env: Pick<DemoEnv, "OPLEDGER_DEMO_PROVIDER_PORT">): string | null {
  if (serverPort !== env.OPLEDGER_DEMO_PROVIDER_PORT) return null;
  return (
    `opledger cannot start: PORT ${serverPort} is also the demo providers' port (OPLEDGER_DEMO_PROVIDER_PORT, ` +
    `default ${DEFAULT_PROVIDER_PORT}); choose another PORT, set OPLEDGER_DEMO_PROVIDER_PORT to a free port, or ` +
    `set OPLEDGER_DEMO=off.`
  );
}

/** Where the demo providers listen: 127.0.0.1 and OPLEDGER_DEMO_PROVIDER_PORT (default 3999). */
export function demoProviderUrl(source: Record<string, string | undefined> = process.env): string {
  const port = Number(source.OPLEDGER_DEMO_PROVIDER_PORT);
  return `http://127.0.0.1:${Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_PROVIDER_PORT}`;
}
