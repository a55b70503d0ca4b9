// Issue #18, bulk actions over the API: who may preview and run (an agent key, a key that is no person, someone
// else's preview), each bad input a clear problem with nothing changed; a cancelled job stops; a server killed in the
// middle of a job resumes it after a restart, and no operation is acted on twice.
import { api, createKey, E2E_DB_URL, expectJson, expectProblem, putContract, type Api } from "../fixtures/api";
import { expect, test } from "../fixtures/login";
import { E2E_PORT, TEST_ADMIN_EMAIL } from "../fixtures/test-env";
import { ServerProcess } from "../fixtures/server-process";
import { uniqueName } from "../fixtures/seed";
import { E2E_ENGINE, freshDatabase } from "../scale-out/support/fresh-database";
import { bulkLedger, type JobReport } from "./support/run-bulk-ledger";

interface Preview {
  previewId: string;
  matched: number;
  items: { id: string; willDo: string }[];
  skipped: { id: string; why: string }[];
  warning: { count: number } | null;
}
interface Job {
  jobId: string;
  status: string;
  total: number;
  acted: number;
  skipped: number;
  stale: number;
  failed: number;
  pending: number;
  items: { id: string; result: string | null }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `count` operations of `tool` in run `runId`, each waiting for a person; their ids. */
function seedWaiting(databaseUrl: string, tool: string, runId: string, count: number): Promise<string[]> {
  return bulkLedger<string[]>("seed-waiting", databaseUrl, tool, runId, String(count));
}

async function waitingTool(request: Parameters<typeof putContract>[0]): Promise<string> {
  const tool = uniqueName("wire.send");
  await putContract(request, tool, { effect: "NON_RETRYABLE", approval: "required", idempotencyKey: "optional" });
  return tool;
}

test("who may preview and run a bulk action, and each bad input: a clear problem, nothing changed", async ({
  request,
}) => {
  test.setTimeout(120_000);
  const tool = await waitingTool(request);
  const runId = uniqueName("bulk-api");
  const ids = await seedWaiting(E2E_DB_URL, tool, runId, 3);
  const operator: Api = api(request, (await createKey(["operator"])).key);
  const agent: Api = api(request, (await createKey(["agent"])).key);
  const bootstrap: Api = api(request);
  const rejectAll = { action: "reject", filter: { runId }, dryRun: true };

  // An agent key may not act in bulk at all; the bootstrap key is no person, so it may not approve.
  expectProblem(await agent.send("POST", "/api/v1/bulk", { data: rejectAll }), 403, "forbidden");
  expectProblem(
    await bootstrap.send("POST", "/api/v1/bulk", { data: { ...rejectAll, action: "approve" } }),
    403,
    "person_required",
  );
  // Bad input.
  expectProblem(
    await operator.send("POST", "/api/v1/bulk", { data: { action: "reject", filter: { runId } } }),
    400,
    "invalid_body",
  );
  expectProblem(await operator.send("POST", "/api/v1/bulk", { data: "{not json" }), 400, "malformed_json");
  expectProblem(
    await operator.send("POST", "/api/v1/bulk", { data: { ...rejectAll, filter: { runId: uniqueName("none") } } }),
    422,
    "nothing_matches",
  );
  expectProblem(
    await operator.send("POST", "/api/v1/bulk", { data: { previewId: "01NOSUCHPREVIEW", reason: "x" } }),
    404,
    "not_found",
  );
  expectProblem(await operator.get("/api/v1/bulk/01NOSUCHJOB"), 404, "not_found");
  expectProblem(await operator.send("GET", "/api/v1/bulk"), 405);

  // A preview by the operator's key: approve, with the warning for NON_RETRYABLE effects.
  const preview = expectJson(
    await operator.send<Preview>("POST", "/api/v1/bulk", { data: { ...rejectAll, action: "approve" } }),
    200,
  );
  expect(preview.matched).toBe(3);
  expect(preview.items.map((i) => i.id).sort()).toEqual([...ids].sort());
  expect(preview.warning?.count).toBe(3);
  // Someone else's preview is not found, as if it did not exist.
  expectProblem(
    await bootstrap.send("POST", "/api/v1/bulk", { data: { previewId: preview.previewId, reason: "x" } }),
    404,
    "not_found",
  );
  for (const id of ids) expect(expectJson(await bootstrap.getOp(id), 200).phase).toBe("AWAITING_APPROVAL");
  const started = await operator.send<{ jobId: string }>("POST", "/api/v1/bulk", {
    data: { previewId: preview.previewId, reason: "approved in bulk" },
  });
  const { jobId } = expectJson(started, 202);
  expectProblem(
    await operator.send("POST", "/api/v1/bulk", { data: { previewId: preview.previewId, reason: "again" } }),
    409,
    "already_run",
  );
  expectProblem(await agent.get(`/api/v1/bulk/${jobId}`), 403, "forbidden");
  await waitFor(
    "the job to finish",
    async () => (await operator.get<Job>(`/api/v1/bulk/${jobId}`)).body?.status === "done",
  );
  const job = expectJson(await operator.get<Job>(`/api/v1/bulk/${jobId}`), 200);
  expect(job).toMatchObject({ total: 3, acted: 3, stale: 0, failed: 0, pending: 0 });
  expectProblem(
    await operator.send("POST", `/api/v1/bulk/${jobId}/cancel`, { data: { reason: "too late" } }),
    409,
    "job_finished",
  );
  for (const id of ids) {
    expect(expectJson(await bootstrap.getOp(id), 200)).toMatchObject({ phase: "PLANNED", approvedAttempt: 1 });
  }
  // The console's job route needs a signed-in session: a key is not one, and no session is a 401.
  const noSession = await request.fetch(`/api/console/bulk/${jobId}`, { failOnStatusCode: false });
  expect(noSession.status()).toBe(401);
});

test("cancelling a running job stops it; what was not run is left as it was", async ({ request }) => {
  test.setTimeout(180_000);
  const tool = await waitingTool(request);
  const runId = uniqueName("bulk-cancel");
  await seedWaiting(E2E_DB_URL, tool, runId, 600);
  const operator = api(request, (await createKey(["operator"])).key);
  const preview = expectJson(
    await operator.send<Preview>("POST", "/api/v1/bulk", {
      data: { action: "reject", filter: { runId }, dryRun: true },
    }),
    200,
  );
  const { jobId } = expectJson(
    await operator.send<{ jobId: string }>("POST", "/api/v1/bulk", {
      data: { previewId: preview.previewId, reason: "wrong recipients" },
    }),
    202,
  );
  await waitFor(
    "the first batches",
    async () => ((await operator.get<Job>(`/api/v1/bulk/${jobId}`)).body as Job).acted > 0,
  );
  expectJson(await operator.send("POST", `/api/v1/bulk/${jobId}/cancel`, { data: { reason: "stop" } }), 200);
  await waitFor(
    "the job to stop",
    async () => (await operator.get<Job>(`/api/v1/bulk/${jobId}`)).body?.status === "cancelled",
  );
  const job = expectJson(await operator.get<Job>(`/api/v1/bulk/${jobId}`), 200);
  expect(job.pending, "the job stopped before the end").toBeGreaterThan(0);
  expect(job.acted + job.pending).toBe(600);
  const report = await bulkLedger<JobReport>("report", E2E_DB_URL, runId, jobId);
  expect(report.phases).toEqual({ REJECTED: job.acted, AWAITING_APPROVAL: job.pending });
  expect(Object.keys(report.markedPerOperation)).toHaveLength(job.acted);
  expect(report.jobAudit.map((a) => a.action)).toEqual(["bulk.started", "bulk.cancelled", "bulk.finished"]);
  await sleep(1_500);
  expect((await operator.get<Job>(`/api/v1/bulk/${jobId}`)).body).toMatchObject({ acted: job.acted });
  // The rest are rejected too, with a second job: the other specs' Approvals queue starts with the longest waiting.
  const rest = expectJson(
    await operator.send<Preview>("POST", "/api/v1/bulk", {
      data: { action: "reject", filter: { runId, phase: "AWAITING_APPROVAL" }, dryRun: true },
    }),
    200,
  );
  expect(rest.matched).toBe(job.pending);
  const second = expectJson(
    await operator.send<{ jobId: string }>("POST", "/api/v1/bulk", {
      data: { previewId: rest.previewId, reason: "clean up after the cancel" },
    }),
    202,
  );
  await waitFor(
    "the second job",
    async () => (await operator.get<Job>(`/api/v1/bulk/${second.jobId}`)).body?.status === "done",
  );
  expect((await bulkLedger<JobReport>("report", E2E_DB_URL, runId, second.jobId)).phases).toEqual({ REJECTED: 600 });
});

test("a server killed in the middle of a job resumes it after a restart, acting on each operation once", async ({
  playwright,
}) => {
  test.setTimeout(300_000);
  // E2E_PORT + 40 is the one port of the run's band of extra servers that extraPort(1..9) leaves free.
  const port = E2E_PORT + 40;
  const database = await freshDatabase(`bulk_restart_${port}`);
  const start = () =>
    ServerProcess.start({ name: `bulk restart server (${E2E_ENGINE})`, port, databaseUrl: database.url });
  let server = await start();
  const request = await playwright.request.newContext({ baseURL: server.url });
  try {
    const tool = uniqueName("wire.send");
    await putContract(request, tool, { effect: "NON_RETRYABLE", approval: "required", idempotencyKey: "optional" });
    const runId = uniqueName("bulk-restart");
    await seedWaiting(database.url, tool, runId, 1_500);
    // The job acts as the admin the server created at start-up, as if signed in to the console.
    const { jobId } = await bulkLedger<{ jobId: string }>(
      "start",
      database.url,
      "reject",
      runId,
      TEST_ADMIN_EMAIL,
      "restart test",
    );
    const bootstrap = api(request);
    await waitFor(
      "the job to be under way",
      async () => ((await bootstrap.get<Job>(`/api/v1/bulk/${jobId}`)).body as Job).acted >= 100,
    );
    await server.stop("SIGKILL");
    const atKill = (await bulkLedger<JobReport>("report", database.url, runId, jobId)).job!;
    expect(atKill.status, "killed mid-run").toBe("running");
    expect(atKill.acted).toBeLessThan(1_500);

    server = await start();
    // The dead server's lease runs out (30 s), then the new one takes the job over.
    await waitFor(
      "the job to finish after the restart",
      async () => ((await bootstrap.get<Job>(`/api/v1/bulk/${jobId}`)).body as Job).status === "done",
      180_000,
    );
    const report = await bulkLedger<JobReport>("report", database.url, runId, jobId);
    expect(report.job).toMatchObject({ matched: 1_500, acted: 1_500, stale: 0, failed: 0, leaseOwner: null });
    expect(report.phases).toEqual({ REJECTED: 1_500 });
    // Each operation was rejected by this job exactly once, whichever server did it.
    const marked = Object.values(report.markedPerOperation);
    expect(marked).toHaveLength(1_500);
    expect(
      marked.every((n) => n === 1),
      "each operation rejected exactly once",
    ).toBe(true);
    expect(report.markedActions).toEqual({ "operation.rejected": 1_500 });
    console.log(`killed at ${atKill.acted} of 1,500 acted; resumed and finished after the restart`);
  } finally {
    await request.dispose();
    await server.stop("SIGTERM").catch(() => undefined);
    await database.drop();
  }
});
