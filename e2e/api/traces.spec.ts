// Traces end to end (docs/observability.md): an HTTP agent sends a W3C traceparent on plan, claim, dispatch and
// outcome; the server (tracing on, exporting OTLP/HTTP JSON to the run's receiver) puts its spans in that trace under
// each call's span; the operation records the trace ids; and the console links them through OPLEDGER_TRACE_URL.
import { expect, test } from "../fixtures/login";
import { api, expectJson, putContract, uniqueId, uniqueTool, type Api, type Operation } from "../fixtures/api";
import { TEST_TRACE_URL } from "../fixtures/test-env";
import { callerSpan, newTraceId, pathUp, receivedSpans, spanWith, type CallerSpan } from "../fixtures/traces";
import { screenshot } from "../demo/screenshot";

const traceLink = (traceId: string) => TEST_TRACE_URL.replace("{traceId}", traceId);

/** One call of the agent, sent with its own span's traceparent. */
function tracedCall<T>(client: Api, caller: CallerSpan, method: string, path: string, data: unknown) {
  return client.send<T>(method, path, { data, headers: { traceparent: caller.traceparent } });
}

test("an HTTP agent's traceparent: opledger's spans join its trace under each call, and the console links the trace", async ({
  request,
  page,
  login,
}) => {
  test.setTimeout(60_000);
  const client = api(request);
  const tool = uniqueTool("traced");
  await putContract(request, tool, { effect: "IDEMPOTENT", backoff: { baseMs: 50, maxMs: 100 } });
  const runId = uniqueId("run");
  const workerId = uniqueId("worker");
  // The agent's step that plans and makes the first attempt, and a later step that retries: two traces.
  const first = newTraceId();
  const later = newTraceId();
  const calls = {
    plan: callerSpan(first),
    claim: callerSpan(first),
    dispatch: callerSpan(first),
    outcome: callerSpan(first),
    retry: callerSpan(later),
  };

  const body = { tool, args: { to: "traced@example.com" }, idempotencyKey: uniqueId("key"), runId };
  const planned = expectJson(await tracedCall<Operation>(client, calls.plan, "POST", "/api/v1/operations", body), 201);
  expect(planned.traceId).toBe(first);
  const op = `/api/v1/operations/${planned.id}`;
  const lease = expectJson(
    await tracedCall<{ fence: number }>(client, calls.claim, "POST", `${op}/claim`, { workerId, leaseMs: 60_000 }),
    200,
  );
  const { fence } = lease;
  expectJson(await tracedCall(client, calls.dispatch, "POST", `${op}/dispatch`, { fence }), 200);
  const failed = expectJson(
    await tracedCall<Operation>(client, calls.outcome, "POST", `${op}/outcome`, {
      fence,
      result: "failed",
      error: { kind: "ECONNRESET" },
    }),
    200,
  );
  expect(failed.phase).toBe("RETRY_SCHEDULED");
  // The retry goes once its backoff (at most 100 ms) is over: asked again until the gate lets it.
  await expect
    .poll(async () => (await tracedCall(client, calls.retry, "POST", `${op}/dispatch`, { fence })).status)
    .toBe(200);
  expectJson(await client.outcome(planned.id, { fence, result: "confirmed", providerId: "prov_traced" }), 200);

  const detail = expectJson(await client.getOp(planned.id), 200);
  expect(detail.traceId).toBe(first);
  expect(detail.attempts.map((a) => [a.number, a.traceId])).toEqual([
    [1, first],
    [2, later],
  ]);

  await login("viewer");
  await page.goto(`/operations/${planned.id}`);
  const planning = page.getByRole("link", { name: "Trace of the call that planned it, opens in a new tab" });
  await expect(planning).toHaveAttribute("href", traceLink(first));
  await expect(planning).toHaveAttribute("target", "_blank");
  const attempts = page.locator("[data-timeline='attempt']");
  await expect(attempts.nth(0).getByRole("link", { name: /^Trace of attempt 1\b/ })).toHaveAttribute(
    "href",
    traceLink(first),
  );
  await expect(attempts.nth(1).getByRole("link", { name: /^Trace of attempt 2\b/ })).toHaveAttribute(
    "href",
    traceLink(later),
  );
  await screenshot(page, "operation-trace-links");

  // The run's one operation was planned in one trace: the run has one link to it.
  await page.goto(`/runs/${runId}`);
  await expect(page.getByRole("link", { name: /^Trace of the run\b/ })).toHaveAttribute("href", traceLink(first));
  await screenshot(page, "run-trace-link");

  // The spans, exported in batches every 200 ms: each command's span in the agent's trace under that call's span,
  // with the operation, the phase after it and the gate's decision; the retry's in the later step's trace.
  const commandSpan = async (traceId: string, command: string, caller: CallerSpan, phaseAfter?: string) => {
    const spans = await receivedSpans(traceId);
    const span = spanWith(spans, `opledger ${command}`, {
      "opledger.operation.id": planned.id,
      ...(phaseAfter ? { "opledger.phase.after": phaseAfter } : {}),
    });
    return span ? { path: pathUp(spans, span, caller.spanId), attributes: span.attributes } : null;
  };
  for (const command of ["plan", "claim", "dispatch", "outcome"] as const) {
    await expect.poll(async () => (await commandSpan(first, command, calls[command]))?.path.at(-1)).toBe("caller");
  }
  expect((await commandSpan(first, "outcome", calls.outcome))?.attributes).toMatchObject({
    "opledger.tool": tool,
    "opledger.effect": "IDEMPOTENT",
    "opledger.attempt": 1,
    "opledger.phase.before": "DISPATCHED",
    "opledger.phase.after": "RETRY_SCHEDULED",
    "opledger.decision": "RETRY_SAME_KEY",
  });
  await expect
    .poll(async () => (await commandSpan(later, "dispatch", calls.retry, "DISPATCHED"))?.attributes)
    .toMatchObject({ "opledger.attempt": 2, "opledger.decision": "WAIT" });
});
