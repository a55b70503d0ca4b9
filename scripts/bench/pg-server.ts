// Which PostgreSQL server the PostgreSQL benchmarks use: OPLEDGER_BENCH_PG_URL, else the test cluster
// (OPLEDGER_TEST_PG_URL or .data/pg-cluster.env).
import fs from "node:fs";
import path from "node:path";

export function benchPostgresUrl(): string {
  const fromEnv = process.env.OPLEDGER_BENCH_PG_URL ?? process.env.OPLEDGER_TEST_PG_URL;
  if (fromEnv) return fromEnv;
  const stateFile = path.resolve(__dirname, "..", "..", ".data", "pg-cluster.env");
  const recorded = fs.existsSync(stateFile)
    ? /OPLEDGER_TEST_PG_URL=["']?([^"'\s]+)/.exec(fs.readFileSync(stateFile, "utf8"))?.[1]
    : undefined;
  if (recorded) return recorded;
  throw new Error(
    "No PostgreSQL server: set OPLEDGER_BENCH_PG_URL, or start the throwaway cluster with `bash scripts/pg-cluster.sh start`.",
  );
}
