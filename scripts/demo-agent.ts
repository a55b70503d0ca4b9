// The demo agent as its own process: started, SIGKILLed now and then, and restarted by the demo supervisor in the
// server.
//
// Run by hand (the server must run, the providers too, and the key needs the agent scope):
//   OPLEDGER_DEMO_API_KEY=... OPLEDGER_DEMO_LEDGER_URL=http://127.0.0.1:3000 npx tsx scripts/demo-agent.ts
import { z } from "zod";
import { demoProviderUrl, PAYMENTS_AUTH_ENV } from "../lib/demo/config";
import { DemoAgent } from "../lib/demo/agent";

const optionalInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

const envSchema = z.object({
  OPLEDGER_DEMO_API_KEY: z.string().min(20, "must hold an API key with the agent scope"),
  OPLEDGER_DEMO_LEDGER_URL: z.url().default("http://127.0.0.1:3000"),
  OPLEDGER_DEMO_PROVIDER_URL: z.url().optional(),
  [PAYMENTS_AUTH_ENV]: z.string().optional(),
  OPLEDGER_DEMO_AGENT_WORKERS: optionalInt(1, 32),
  OPLEDGER_DEMO_PACE_MS: optionalInt(0, 60_000),
  OPLEDGER_DEMO_LEASE_MS: optionalInt(100, 3_600_000),
  OPLEDGER_DEMO_PROVIDER_TIMEOUT_MS: optionalInt(50, 600_000),
  OPLEDGER_DEMO_RESUME_EVERY_MS: optionalInt(50, 600_000),
});

function main(): void {
  const cleaned = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    // Names the variable, never its value.
    console.error(
      `demo agent cannot start: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`,
    );
    process.exit(2);
  }
  const env = parsed.data;
  const agent = new DemoAgent({
    ledgerUrl: env.OPLEDGER_DEMO_LEDGER_URL,
    apiKey: env.OPLEDGER_DEMO_API_KEY,
    providerUrl: env.OPLEDGER_DEMO_PROVIDER_URL ?? demoProviderUrl(),
    paymentsAuthorization: env[PAYMENTS_AUTH_ENV] ?? null,
    workers: env.OPLEDGER_DEMO_AGENT_WORKERS,
    paceMs: env.OPLEDGER_DEMO_PACE_MS,
    leaseMs: env.OPLEDGER_DEMO_LEASE_MS,
    providerTimeoutMs: env.OPLEDGER_DEMO_PROVIDER_TIMEOUT_MS,
    resumeEveryMs: env.OPLEDGER_DEMO_RESUME_EVERY_MS,
    workerPrefix: `demo-${process.pid}`,
  });
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // Started by the server with an IPC channel: when the server goes, so does the agent.
  process.once("disconnect", stop);
  agent
    .run(controller.signal)
    .then(() => process.exit(0))
    .catch((error: unknown) => {
      console.error(`demo agent stopped: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    });
}

main();
