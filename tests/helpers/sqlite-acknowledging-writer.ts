// The writer of the SQLite kill test: opens the file given as its argument as the server does (openLedger,
// applySqliteSettings) and says "ready <pid>"; on "go" it writes a contract, then plans operations in four lanes and
// acknowledges each write on stdout ("ack <key>") only once the ledger answered, after its COMMIT. It never stops: the
// test kills it.
import { createInterface } from "node:readline";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import { planOperation } from "@/lib/ledger/commands/plan";
import { openLedger } from "@/lib/ledger/ledger";
import { agent, T0, withContract } from "./ledger-fixtures";

const LANES = 4;

async function main(): Promise<void> {
  const [file] = process.argv.slice(2);
  const ledger = openLedger(`file:${file}`);
  await applySqliteSettings(ledger.db);
  // Loads the query engine before "ready", so the test's round is spent writing.
  await ledger.db.operation.count();
  process.stdout.write(`ready ${process.pid}\n`);
  const go = await createInterface({ input: process.stdin })[Symbol.asyncIterator]().next();
  if (go.done) return;
  await withContract(ledger, "payments.charge", "IDEMPOTENT");
  process.stdout.write("ack contract\n");
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let n = 0; ; n++) {
        const key = `lane${lane}-${n}`;
        await planOperation(ledger, { tool: "payments.charge", args: { lane, n }, idempotencyKey: key }, agent, T0);
        // A pipe: Node writes it synchronously on Linux, so the ack has left this process when write returns.
        process.stdout.write(`ack ${key}\n`);
      }
    }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
