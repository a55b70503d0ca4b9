// The e2e run's OTLP receiver as a process: playwright.config.ts starts it as a webServer beside the opledger server.
import { startOtlpReceiver } from "./receiver";

async function main(): Promise<void> {
  const port = Number(process.argv[2]);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`${process.argv[2]} is not a port`);
  const receiver = await startOtlpReceiver(port);
  console.log(`OTLP receiver listening on ${receiver.url}`);
  const stop = (): void => void receiver.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(`OTLP receiver: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
