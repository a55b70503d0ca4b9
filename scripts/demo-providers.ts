// The demo providers on their own (the server starts them in-process when OPLEDGER_DEMO=on): for poking at faults by
// hand.
//
//   npx tsx scripts/demo-providers.ts            (port from OPLEDGER_DEMO_PROVIDER_PORT, default 3999)
// curl -X POST localhost:3999/_faults -H 'content-type: application/json' -d
// '{"tool":"payments","fault":"timeout_after_commit","count":1}'
//   curl localhost:3999/_effects
import { demoEnv, PAYMENTS_AUTH_ENV } from "../lib/demo/config";
import { startProviderServer } from "../lib/demo/providers/server";

async function main(): Promise<void> {
  const env = demoEnv();
  const providers = await startProviderServer({
    port: env.OPLEDGER_DEMO_PROVIDER_PORT,
    defaultFaultRate: env.OPLEDGER_DEMO_FAULT_RATE,
    paymentsAuthorization: process.env[PAYMENTS_AUTH_ENV] || null,
  });
  console.log(
    `demo providers on ${providers.url} (random fault rate ${env.OPLEDGER_DEMO_FAULT_RATE}); Ctrl-C stops them`,
  );
  const stop = () => void providers.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
