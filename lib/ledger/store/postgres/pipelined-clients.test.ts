// The store's pipelined PostgreSQL connections: every statement gets its own answer, a failing one fails alone, and a
// broken connection is replaced.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testPostgresUrl } from "@/tests/helpers/pg-databases";
import { PIPELINE_DEPTH, PipelinedClients } from "./pipelined-clients";

const url = testPostgresUrl();

describe.skipIf(!url)("pipelined PostgreSQL connections", () => {
  let clients: PipelinedClients;
  beforeEach(() => {
    clients = new PipelinedClients({ connectionString: url! }, 3);
  });
  afterEach(async () => {
    await clients.close();
  });

  type Row = { n?: number; q?: number; pid: number };
  const echo = (n: number) =>
    clients.query<Row>({
      name: "echo",
      text: "SELECT $1::int AS n, pg_backend_pid() AS pid FROM pg_sleep(0.005)",
      values: [n],
    });

  it("answers every statement with its own rows, on no more connections than the size", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => echo(n)));
    expect(answers.map((a) => a.rows[0]!.n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(new Set(answers.map((a) => a.rows[0]!.pid)).size).toBe(3);
    expect(clients.connections).toBe(3);
  });

  it("opens another connection only when every open one has a full pipeline", async () => {
    const answers = await Promise.all(Array.from({ length: PIPELINE_DEPTH }, (_, n) => echo(n)));
    expect(new Set(answers.map((a) => a.rows[0]!.pid)).size).toBe(1);
    await Promise.all(Array.from({ length: PIPELINE_DEPTH + 1 }, (_, n) => echo(n)));
    expect(clients.connections).toBe(2);
  });

  it("fails a failing statement alone, and keeps a statement prepared by it for those behind it", async () => {
    const divide = (d: number) => clients.query<Row>({ name: "divide", text: "SELECT 12 / $1::int AS q", values: [d] });
    const results = await Promise.allSettled([divide(0), divide(3), echo(7), divide(0), divide(4)]);
    expect(
      results.map((r) =>
        r.status === "fulfilled" ? (r.value.rows[0]!.q ?? r.value.rows[0]!.n) : (r.reason as { code: string }).code,
      ),
    ).toEqual(["22012", 4, 7, "22012", 3]);
    expect(clients.connections).toBe(2);
  });

  it("replaces a connection the server closed", async () => {
    const { pid } = (await echo(1)).rows[0]!;
    const admin = new PipelinedClients({ connectionString: url! }, 1);
    try {
      await admin.query({ text: "SELECT pg_terminate_backend($1)", values: [pid] });
    } finally {
      await admin.close();
    }
    await expect.poll(() => clients.connections).toBe(0);
    const after = await echo(2);
    expect([after.rows[0]!.n, after.rows[0]!.pid === pid]).toEqual([2, false]);
  });

  it("refuses statements once closed", async () => {
    await echo(1);
    await clients.close();
    await expect(echo(2)).rejects.toThrow("the ledger store is closed");
  });
});
