// Readiness (/api/health) follows the database, liveness (/api/health/live) does not: a database outage takes an
// instance out of rotation without getting it restarted, and it is ready again when the database is back.
import { expect, test } from "../fixtures";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { E2E_ENGINE, freshDatabase } from "./support/fresh-database";

test("readiness answers 503 while the database is gone and 200 when it is back; liveness stays 200", async () => {
  test.skip(
    E2E_ENGINE === "sqlite",
    "a SQLite file cannot be taken away from the server that has it open; this needs PostgreSQL",
  );
  test.setTimeout(180_000);
  const port = extraPort(5);
  const database = await freshDatabase(`health_${port}`);
  const server = await ServerProcess.start({ name: "health server", port, databaseUrl: database.url });
  const status = async (path: string) => (await fetch(`${server.url}${path}`)).status;
  try {
    expect(await status("/api/health")).toBe(200);
    expect(await status("/api/health/live")).toBe(200);

    // The database disappears under the running server (its connections are terminated too).
    await database.drop();
    const ready = await fetch(`${server.url}/api/health`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await ready.json()) as { code: string }).code).toBe("database_unavailable");
    expect(await status("/api/health/live")).toBe(200);

    // Back (empty, but reachable): ready again without a restart.
    await freshDatabase(`health_${port}`);
    await expect.poll(() => status("/api/health"), { timeout: 15_000 }).toBe(200);
  } finally {
    await server.stop("SIGTERM");
    await database.drop();
  }
});
