// Agent API v1, operations (docs/api.md#operations, #recovery, #metrics): plan, lease, dispatch, outcome, approval,
// reconciliation, the recovery sweep, lists, metrics and the OpenAPI document, over HTTP against the built server.
import { expect, test, TEST_ADMIN_EMAIL } from "../fixtures";
import {
  api,
  claimAndDispatch,
  errorFields,
  expectJson,
  expectProblem,
  ISO_UTC,
  parsePrometheus,
  personKey,
  plannedOperation,
  putContract,
  uniqueId,
  uniqueTool,
  userIdOf,
  type Operation,
  type OperationDetail,
} from "../fixtures/api";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const actions = (detail: OperationDetail): string[] => detail.audit.map((e) => e.action);

test.describe("POST /api/v1/operations (plan)", () => {
  test("a new plan is 201 with the operation: PLANNED, attempt 0, its key, contract version and decision", async ({
    request,
  }) => {
    const client = api(request);
    const tool = uniqueTool("plan");
    await putContract(request, tool, { effect: "IDEMPOTENT", idempotencyKey: "required" });
    await putContract(request, tool, { effect: "IDEMPOTENT", idempotencyKey: "required", maxAttempts: 5 });
    const idempotencyKey = uniqueId("key");
    const runId = uniqueId("run");
    const before = Date.now();
    const result = await client.plan({
      tool,
      args: { to: "a@example.com", amount: { value: 5, currency: "EUR" } },
      idempotencyKey,
      runId,
      agentId: "agent-7",
    });
    const op = expectJson(result, 201);
    expect(op).toEqual(
      expect.objectContaining({
        tool,
        contractVersion: 2,
        effect: "IDEMPOTENT",
        idempotencyKey,
        phase: "PLANNED",
        attempt: 0,
        runId,
        agentId: "agent-7",
        args: { to: "a@example.com", amount: { value: 5, currency: "EUR" } },
      }),
    );
    expect(op.id).toMatch(/^\S{10,}$/);
    expect(op.decision.action).toBe("DISPATCH");
    expect(op.decision.reason.length).toBeGreaterThan(10);
    expect(op.decision.retryAfterMs).toBeUndefined();
    expect(op.createdAt).toMatch(ISO_UTC);
    expect(Date.parse(op.createdAt)).toBeGreaterThanOrEqual(before - 2000);
    expect(Date.parse(op.createdAt)).toBeLessThanOrEqual(Date.now() + 2000);

    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail).toEqual(expect.objectContaining({ id: op.id, phase: "PLANNED", attempt: 0, idempotencyKey }));
    expect(detail.attempts).toEqual([]);
    expect(actions(detail)).toEqual(["operation.planned"]);
  });

  test("the same key and args (keys in another order) answer 200 with the SAME operation, nothing new written", async ({
    request,
  }) => {
    const client = api(request);
    const tool = uniqueTool("replay");
    await putContract(request, tool);
    const idempotencyKey = uniqueId("key");
    const first = expectJson(
      await client.plan({ tool, idempotencyKey, args: { a: 1, b: { c: [1, 2, { d: true, e: null }], f: "x" } } }),
      201,
    );
    const replay = await client.plan({
      tool,
      idempotencyKey,
      args: { b: { f: "x", c: [1, 2, { e: null, d: true }] }, a: 1 },
    });
    const again = expectJson(replay, 200);
    expect(again.id).toBe(first.id);
    expect(again.idempotencyKey).toBe(idempotencyKey);
    expect(again.phase).toBe("PLANNED");

    const list = expectJson(await client.list({ tool }), 200);
    expect(list.items.map((o) => o.id)).toEqual([first.id]);
    expect(actions(expectJson(await client.getOp(first.id), 200))).toEqual(["operation.planned"]);
  });

  test("the same key with different args is 422 idempotency_key_reused, and no second operation exists", async ({
    request,
  }) => {
    const client = api(request);
    const tool = uniqueTool("reused");
    await putContract(request, tool);
    const idempotencyKey = uniqueId("key");
    const first = expectJson(await client.plan({ tool, idempotencyKey, args: { amount: 5 } }), 201);
    const problem = expectProblem(
      await client.plan({ tool, idempotencyKey, args: { amount: 6 } }),
      422,
      "idempotency_key_reused",
    );
    expect(problem.detail).toContain(idempotencyKey);

    const list = expectJson(await client.list({ tool }), 200);
    expect(list.items.map((o) => o.id)).toEqual([first.id]);
    expect(list.items[0]?.args).toEqual({ amount: 5 });
    // Counted as a duplicate rejection (it shows on the operation's trail, and in the metrics test).
    expect(actions(expectJson(await client.getOp(first.id), 200))).toContain("operation.duplicate_rejected");
  });

  test("the same key on another tool is another operation", async ({ request }) => {
    const client = api(request);
    const [toolA, toolB] = [uniqueTool("a"), uniqueTool("b")];
    await putContract(request, toolA);
    await putContract(request, toolB);
    const idempotencyKey = uniqueId("key");
    const a = expectJson(await client.plan({ tool: toolA, idempotencyKey, args: { n: 1 } }), 201);
    const b = expectJson(await client.plan({ tool: toolB, idempotencyKey, args: { n: 2 } }), 201);
    expect(b.id).not.toBe(a.id);
  });

  test("a tool without a contract is 422 no_contract, and nothing is planned", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("nocontract");
    expectProblem(await client.plan({ tool, args: {}, idempotencyKey: uniqueId("key") }), 422, "no_contract");
    expect(expectJson(await client.list({ tool }), 200).items).toEqual([]);
  });

  test("a contract that requires a key and a plan without one: 400 idempotency_key_required", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("keyreq");
    await putContract(request, tool, { idempotencyKey: "required" });
    expectProblem(await client.plan({ tool, args: { n: 1 } }), 400, "idempotency_key_required");
    expect(expectJson(await client.list({ tool }), 200).items).toEqual([]);
  });

  test("no key where the contract allows it: the server makes one, once, and every attempt reuses it", async ({
    request,
  }) => {
    const client = api(request);
    for (const policy of ["optional", "unsupported"] as const) {
      const tool = uniqueTool(`key-${policy}`);
      await putContract(request, tool, { effect: "PURE", idempotencyKey: policy, backoff: { baseMs: 0, maxMs: 0 } });
      const op = expectJson(await client.plan({ tool, args: { q: "weather" } }), 201);
      expect(typeof op.idempotencyKey).toBe("string");
      expect(op.idempotencyKey.length).toBeGreaterThan(8);

      // Two calls without a key are two operations with two keys.
      const other = expectJson(await client.plan({ tool, args: { q: "weather" } }), 201);
      expect(other.id).not.toBe(op.id);
      expect(other.idempotencyKey).not.toBe(op.idempotencyKey);

      // The server-made key is the operation's: it finds the operation again, and every attempt carries it.
      const replay = expectJson(
        await client.plan({ tool, args: { q: "weather" }, idempotencyKey: op.idempotencyKey }),
        200,
      );
      expect(replay.id).toBe(op.id);
      const { fence, op: first } = await claimAndDispatch(client, op.id);
      expect(first.idempotencyKey).toBe(op.idempotencyKey);
      expectJson(await client.outcome(op.id, { fence, result: "failed", error: { httpStatus: 503 } }), 200);
      const second = expectJson(await client.dispatch(op.id, { fence }), 200);
      expect(second.attempt).toBe(2);
      expect(second.idempotencyKey).toBe(op.idempotencyKey);
    }
  });

  test("50 concurrent identical plans make exactly one operation", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("herd");
    await putContract(request, tool);
    const idempotencyKey = uniqueId("key");
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client.plan({ tool, idempotencyKey, args: i % 2 ? { x: 1, y: [1, 2] } : { y: [1, 2], x: 1 }, runId: "herd" }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      `statuses: ${statuses.join(",")}`,
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 200),
      `statuses: ${statuses.join(",")}`,
    ).toHaveLength(49);
    const ids = new Set(results.map((r) => (r.body as Operation | undefined)?.id));
    expect([...ids]).toHaveLength(1);

    const list = expectJson(await client.list({ tool }), 200);
    expect(list.items).toHaveLength(1);
    const detail = expectJson(await client.getOp(list.items[0]?.id ?? "missing"), 200);
    expect(actions(detail).filter((a) => a === "operation.planned")).toHaveLength(1);
  });
});

test.describe("lease, dispatch and outcome", () => {
  test("claim -> dispatch -> outcome confirmed, with the attempt and the audit trail", async ({ request }) => {
    const client = api(request);
    const { tool, op } = await plannedOperation(request, { effect: "IDEMPOTENT" });
    const workerId = uniqueId("worker");

    const before = Date.now();
    const lease = expectJson(await client.claim(op.id, { workerId, leaseMs: 60_000 }), 200);
    expect(lease.fence).toBe(1);
    expect(lease.leaseExpiresAt).toMatch(ISO_UTC);
    const expires = Date.parse(lease.leaseExpiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 60_000 - 2000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 60_000 + 2000);
    expect(lease.operation).toEqual(
      expect.objectContaining({ id: op.id, phase: "PLANNED", fence: 1, leaseOwner: workerId }),
    );

    const dispatched = expectJson(await client.dispatch(op.id, { fence: lease.fence }), 200);
    expect(dispatched).toEqual(
      expect.objectContaining({ id: op.id, tool, phase: "DISPATCHED", attempt: 1, idempotencyKey: op.idempotencyKey }),
    );
    expect(dispatched.decision.action).toBe("WAIT");

    const confirmed = expectJson(
      await client.outcome(op.id, { fence: lease.fence, result: "confirmed", providerId: "prov_123" }),
      200,
    );
    expect(confirmed).toEqual(expect.objectContaining({ phase: "CONFIRMED", attempt: 1, providerId: "prov_123" }));
    expect(confirmed.decision.action).toBe("STOP");

    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail.phase).toBe("CONFIRMED");
    expect(detail.attempts).toHaveLength(1);
    expect(detail.attempts[0]).toEqual(
      expect.objectContaining({ number: 1, workerId, fence: 1, result: "confirmed", providerId: "prov_123" }),
    );
    expect(detail.attempts[0]?.dispatchedAt).toMatch(ISO_UTC);
    expect(detail.attempts[0]?.finishedAt).toMatch(ISO_UTC);
    expect(actions(detail)).toEqual([
      "operation.planned",
      "operation.lease_claimed",
      "operation.authorized",
      "operation.dispatched",
      "operation.confirmed",
    ]);
    // Through AUTHORIZED: PLANNED -> AUTHORIZED -> DISPATCHED -> CONFIRMED.
    const moves = detail.audit.filter((e) => e.toPhase).map((e) => `${e.fromPhase ?? "-"}>${e.toPhase}`);
    expect(moves).toEqual(["->PLANNED", "PLANNED>AUTHORIZED", "AUTHORIZED>DISPATCHED", "DISPATCHED>CONFIRMED"]);
    for (const e of detail.audit) {
      expect(e.actorType).toBe("api_key");
      expect(e.createdAt).toMatch(ISO_UTC);
    }

    // Confirmed is final: another dispatch is refused with the decision.
    const again = expectProblem(await client.dispatch(op.id, { fence: lease.fence }), 409, "already_finished");
    expect(again.decision?.action).toBe("STOP");
    expectProblem(await client.claim(op.id, { workerId, leaseMs: 1000 }), 409, "already_finished");
  });

  test("a claim on a live lease held by another worker is 409 lease_held", async ({ request }) => {
    const client = api(request);
    const { op } = await plannedOperation(request);
    const lease = expectJson(await client.claim(op.id, { workerId: "worker-a", leaseMs: 60_000 }), 200);
    const problem = expectProblem(
      await client.claim(op.id, { workerId: "worker-b", leaseMs: 60_000 }),
      409,
      "lease_held",
    );
    expect(problem.detail).toContain("worker-a");
    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail).toEqual(expect.objectContaining({ leaseOwner: "worker-a", fence: lease.fence, phase: "PLANNED" }));
  });

  test("an expired lease is taken over with fence + 1; the old fence cannot dispatch or report, and nothing changes", async ({
    request,
  }) => {
    const client = api(request);
    const { op } = await plannedOperation(request);
    const old = expectJson(await client.claim(op.id, { workerId: "worker-old", leaseMs: 100 }), 200);
    await sleep(400);
    // Expired before DISPATCHED: the sweep leaves it alone, another worker claims it and continues normally.
    expect(expectJson(await client.getOp(op.id), 200).phase).toBe("PLANNED");
    const taken = expectJson(await client.claim(op.id, { workerId: "worker-new", leaseMs: 60_000 }), 200);
    expect(taken.fence).toBe(old.fence + 1);

    const before = expectJson(await client.getOp(op.id), 200);
    const refused = expectProblem(await client.dispatch(op.id, { fence: old.fence }), 409, "stale_fence");
    expect(refused.detail).toContain(String(old.fence));
    const after = expectJson(await client.getOp(op.id), 200);
    expect(after).toEqual(
      expect.objectContaining({
        phase: "PLANNED",
        attempt: 0,
        fence: taken.fence,
        leaseOwner: "worker-new",
        updatedAt: before.updatedAt,
      }),
    );
    expect(after.attempts).toEqual([]);
    // The refusal itself is audited.
    const trail = actions(after);
    expect(trail).toContain("operation.lease_taken_over");
    expect(trail.at(-1)).toBe("operation.stale_fence_rejected");

    // The new holder goes on; the old one still cannot report on its attempt.
    const dispatched = expectJson(await client.dispatch(op.id, { fence: taken.fence }), 200);
    expect(dispatched.attempt).toBe(1);
    expectProblem(await client.outcome(op.id, { fence: old.fence, result: "confirmed" }), 409, "stale_fence");
    const still = expectJson(await client.getOp(op.id), 200);
    expect(still.phase).toBe("DISPATCHED");
    expect(still.attempts).toEqual([
      expect.objectContaining({ number: 1, fence: taken.fence, workerId: "worker-new", result: "in_flight" }),
    ]);
  });

  test("heartbeat extends the lease; a stale fence is 409 stale_fence", async ({ request }) => {
    const client = api(request);
    const { op } = await plannedOperation(request);
    const old = expectJson(await client.claim(op.id, { workerId: "worker-old", leaseMs: 100 }), 200);
    await sleep(300);
    const taken = expectJson(await client.claim(op.id, { workerId: "worker-new", leaseMs: 1000 }), 200);

    expectProblem(await client.heartbeat(op.id, { fence: old.fence, leaseMs: 60_000 }), 409, "stale_fence");
    expect(expectJson(await client.getOp(op.id), 200).leaseExpiresAt).toBe(taken.leaseExpiresAt);

    const before = Date.now();
    const beat = expectJson(await client.heartbeat(op.id, { fence: taken.fence, leaseMs: 120_000 }), 200);
    expect(beat.fence).toBe(taken.fence);
    expect(Date.parse(beat.leaseExpiresAt)).toBeGreaterThanOrEqual(before + 120_000 - 2000);
    expect(Date.parse(beat.leaseExpiresAt)).toBeGreaterThan(Date.parse(taken.leaseExpiresAt));
    expect(beat.operation).toEqual(
      expect.objectContaining({ id: op.id, leaseOwner: "worker-new", leaseExpiresAt: beat.leaseExpiresAt }),
    );
  });

  test("failed with a 503 -> RETRY_SCHEDULED with decision.retryAfterMs; a dispatch before it is due is 409 retry_not_due", async ({
    request,
  }) => {
    const client = api(request);
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT", backoff: { baseMs: 50, maxMs: 100 } });
    const { fence } = await claimAndDispatch(client, op.id);
    const failed = expectJson(
      await client.outcome(op.id, {
        fence,
        result: "failed",
        error: { httpStatus: 503, message: "upstream busy", retryAfterMs: 30_000 },
      }),
      200,
    );
    expect(failed.phase).toBe("RETRY_SCHEDULED");
    expect(failed.attempt).toBe(1);
    expect(failed.decision.action).toBe("RETRY_SAME_KEY");
    // The provider's Retry-After (30 s) is a floor over the 100 ms backoff.
    expect(failed.decision.retryAfterMs).toBeGreaterThan(25_000);
    expect(failed.decision.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(failed.lastError).toEqual(expect.objectContaining({ kind: "server_error", httpStatus: 503 }));
    expect(Date.parse(failed.notBefore ?? "")).toBeGreaterThan(Date.now() + 25_000);

    const early = expectProblem(await client.dispatch(op.id, { fence }), 409, "retry_not_due");
    expect(early.decision?.action).toBe("RETRY_SAME_KEY");
    expect(early.decision?.retryAfterMs).toBeGreaterThan(20_000);
    const after = expectJson(await client.getOp(op.id), 200);
    expect(after).toEqual(expect.objectContaining({ phase: "RETRY_SCHEDULED", attempt: 1 }));
    expect(after.attempts).toEqual([expect.objectContaining({ number: 1, result: "failed", httpStatus: 503 })]);
  });

  test("once the backoff is over the retry goes with the same key, and its attempt is recorded", async ({
    request,
  }) => {
    const client = api(request);
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT", backoff: { baseMs: 50, maxMs: 100 } });
    const { fence } = await claimAndDispatch(client, op.id);
    const failed = expectJson(
      await client.outcome(op.id, { fence, result: "failed", error: { kind: "ECONNRESET" } }),
      200,
    );
    expect(failed.phase).toBe("RETRY_SCHEDULED");
    expect(failed.decision.retryAfterMs ?? 0).toBeLessThanOrEqual(100);
    await sleep(150);
    const retry = expectJson(await client.dispatch(op.id, { fence }), 200);
    expect(retry).toEqual(
      expect.objectContaining({ phase: "DISPATCHED", attempt: 2, idempotencyKey: op.idempotencyKey }),
    );
    expectJson(await client.outcome(op.id, { fence, result: "confirmed", providerId: "prov_retry" }), 200);
    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail.attempts.map((a) => [a.number, a.result, a.errorKind])).toEqual([
      [1, "failed", "connection_reset"],
      [2, "confirmed", null],
    ]);
  });

  test("a fatal error (400) ends the operation as FAILED, never retried", async ({ request }) => {
    const client = api(request);
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT" });
    const { fence } = await claimAndDispatch(client, op.id);
    const failed = expectJson(
      await client.outcome(op.id, { fence, result: "failed", error: { httpStatus: 400, message: "bad card" } }),
      200,
    );
    expect(failed.phase).toBe("FAILED");
    expect(failed.decision.action).toBe("STOP");
    expect(expectProblem(await client.dispatch(op.id, { fence }), 409, "already_finished").decision?.action).toBe(
      "STOP",
    );
  });
});

test.describe("approval and rejection", () => {
  test("a NON_RETRYABLE failure needs approval; approve grants exactly one attempt; approving twice is 409", async ({
    request,
  }) => {
    const client = api(request);
    // A key bound to a person (the e2e admin): approvals are a person's; the bootstrap key planned the operation.
    const { key: operatorKey } = await personKey();
    const operator = api(request, operatorKey);
    const { op } = await plannedOperation(request, { effect: "NON_RETRYABLE", maxAttempts: 5 });
    const { fence } = await claimAndDispatch(client, op.id);

    const failed = expectJson(
      await client.outcome(op.id, { fence, result: "failed", error: { httpStatus: 503 } }),
      200,
    );
    expect(failed.decision.action).toBe("APPROVAL");
    const refused = expectProblem(await client.dispatch(op.id, { fence }), 409, "approval_required");
    expect(refused.decision?.action).toBe("APPROVAL");
    expect(expectJson(await client.getOp(op.id), 200)).toEqual(
      expect.objectContaining({ phase: "AWAITING_APPROVAL", attempt: 1 }),
    );

    // The bootstrap key is no person: it cannot open the gate, whatever it plans.
    expectProblem(await client.approve(op.id, { reason: "automation" }), 403, "person_required");
    // `actor` is display text from older clients: ignored, the key's person decides and is recorded.
    const approved = expectJson(
      await operator.approve(op.id, { actor: "alice@example.com", reason: "the customer confirmed nothing was sent" }),
      200,
    );
    expect(approved.id).toBe(op.id);
    expect(approved.approvedAttempt).toBe(2);
    expect(approved.phase).not.toBe("AWAITING_APPROVAL");
    expect(["RETRY", "RETRY_SAME_KEY"]).toContain(approved.decision.action);

    // Approving again (it no longer waits for approval) is refused.
    expectProblem(
      await operator.approve(op.id, { actor: "bob@example.com", reason: "me too" }),
      409,
      "not_awaiting_approval",
    );

    // Exactly one attempt: it goes, it fails, and the next one is refused again.
    const second = expectJson(await client.dispatch(op.id, { fence }), 200);
    expect(second).toEqual(
      expect.objectContaining({ phase: "DISPATCHED", attempt: 2, idempotencyKey: op.idempotencyKey }),
    );
    expectJson(await client.outcome(op.id, { fence, result: "failed", error: { httpStatus: 503 } }), 200);
    expectProblem(await client.dispatch(op.id, { fence }), 409, "approval_required");

    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail).toEqual(expect.objectContaining({ phase: "AWAITING_APPROVAL", attempt: 2 }));
    expect(detail.attempts).toHaveLength(2);
    const approval = detail.audit.find((e) => e.action === "operation.approved");
    expect(approval).toEqual(
      expect.objectContaining({
        actorType: "api_key",
        onBehalfOf: await userIdOf(TEST_ADMIN_EMAIL),
        reason: "the customer confirmed nothing was sent",
      }),
    );
    expect(approval?.actorLabel).toContain(TEST_ADMIN_EMAIL);
    expect(JSON.stringify(detail.audit)).not.toContain("alice@example.com");
  });

  test("approving an operation that does not wait for approval is 409 not_awaiting_approval", async ({ request }) => {
    const { key } = await personKey();
    const { op } = await plannedOperation(request);
    expectProblem(
      await api(request, key).approve(op.id, { actor: "alice", reason: "why not" }),
      409,
      "not_awaiting_approval",
    );
    expect(expectJson(await api(request).getOp(op.id), 200)).toEqual(
      expect.objectContaining({ phase: "PLANNED", approvedAttempt: null }),
    );
  });

  test("approval: required holds even the first attempt until a person approves it", async ({ request }) => {
    const client = api(request);
    const { key } = await personKey();
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT", approval: "required" });
    expect(op.decision.action).toBe("APPROVAL");
    const lease = expectJson(await client.claim(op.id, { workerId: "w1", leaseMs: 60_000 }), 200);
    expectProblem(await client.dispatch(op.id, { fence: lease.fence }), 409, "approval_required");
    expect(expectJson(await client.getOp(op.id), 200).attempt).toBe(0);

    const approved = expectJson(
      await api(request, key).approve(op.id, { actor: "carol", reason: "first send is fine" }),
      200,
    );
    expect(approved.approvedAttempt).toBe(1);
    const dispatched = expectJson(await client.dispatch(op.id, { fence: lease.fence }), 200);
    expect(dispatched.attempt).toBe(1);
  });

  test("reject ends the operation: REJECTED, decision STOP whose reason carries the person's reason", async ({
    request,
  }) => {
    const client = api(request);
    const { key } = await personKey();
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT", approval: "required" });
    const reason = `refund requested by the customer ${uniqueId("r")}`;
    const rejected = expectJson(await api(request, key).reject(op.id, { actor: "dave", reason }), 200);
    expect(rejected.phase).toBe("REJECTED");
    expect(rejected.decision.action).toBe("STOP");
    expect(rejected.decision.reason).toContain(reason);

    // The agent sees it too, and can no longer run it.
    const seen = expectJson(await client.getOp(op.id), 200);
    expect(seen.decision.action).toBe("STOP");
    expect(seen.decision.reason).toContain(reason);
    expectProblem(await client.claim(op.id, { workerId: "w", leaseMs: 1000 }), 409, "already_finished");
    expectProblem(
      await api(request, key).approve(op.id, { actor: "dave", reason: "changed my mind" }),
      409,
      "not_awaiting_approval",
    );
    expect(seen.audit.at(-1)).toEqual(
      expect.objectContaining({
        action: "operation.rejected",
        onBehalfOf: await userIdOf(TEST_ADMIN_EMAIL),
        reason,
        toPhase: "REJECTED",
      }),
    );
  });
});

test.describe("unknown outcomes and reconciliation", () => {
  test("unknown -> UNKNOWN; dispatch must reconcile first; reconcile applied -> RECONCILED and done", async ({
    request,
  }) => {
    const client = api(request);
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT" });
    const { fence } = await claimAndDispatch(client, op.id);
    const unknown = expectJson(
      await client.outcome(op.id, {
        fence,
        result: "unknown",
        error: { kind: "timeout", message: "no answer in 30 s" },
      }),
      200,
    );
    expect(unknown.phase).toBe("UNKNOWN");
    expect(unknown.decision.action).toBe("RECONCILE");
    expect(expectProblem(await client.dispatch(op.id, { fence }), 409, "reconcile_required").decision?.action).toBe(
      "RECONCILE",
    );

    const evidence = { lookup: "GET /v1/charges?idempotency_key=...", status: "succeeded" };
    const reconciled = expectJson(
      await client.reconcile(op.id, { outcome: "applied", providerId: "ch_777", evidence }),
      200,
    );
    expect(reconciled).toEqual(
      expect.objectContaining({ phase: "RECONCILED", evidence: "applied", providerId: "ch_777" }),
    );
    expect(reconciled.decision.action).toBe("STOP");
    expect(JSON.stringify(reconciled.evidenceDetail)).toContain("succeeded");

    // Reconciling fenced the worker out; a new claim finds nothing left to send.
    expectProblem(await client.dispatch(op.id, { fence }), 409, "stale_fence");
    const lease = expectJson(await client.claim(op.id, { workerId: uniqueId("worker"), leaseMs: 60_000 }), 200);
    expectProblem(await client.dispatch(op.id, { fence: lease.fence }), 409, "already_finished");
    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail.attempts).toEqual([expect.objectContaining({ number: 1, result: "unknown", errorKind: "timeout" })]);
    const rec = detail.audit.find((e) => e.action === "operation.reconciled");
    expect(rec).toEqual(expect.objectContaining({ fromPhase: "UNKNOWN", toPhase: "RECONCILED" }));
    expect(JSON.stringify(rec?.data)).toContain("succeeded");
  });

  test("reconcile not_applied lets the gate retry with the same key", async ({ request }) => {
    const client = api(request);
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT" });
    const { fence } = await claimAndDispatch(client, op.id);
    expectJson(await client.outcome(op.id, { fence, result: "unknown" }), 200);
    const reconciled = expectJson(
      await client.reconcile(op.id, { outcome: "not_applied", evidence: { lookup: "404 no such charge" } }),
      200,
    );
    expect(reconciled).toEqual(expect.objectContaining({ phase: "RECONCILED", evidence: "not_applied" }));
    expect(reconciled.decision.action).toBe("RETRY_SAME_KEY");

    // The lost attempt's worker was fenced out by the reconciliation: the retry starts with a claim.
    const lease = expectJson(await client.claim(op.id, { workerId: uniqueId("worker"), leaseMs: 60_000 }), 200);
    expect(lease.fence).toBe(fence + 2);
    const retry = expectJson(await client.dispatch(op.id, { fence: lease.fence }), 200);
    expect(retry).toEqual(
      expect.objectContaining({ phase: "DISPATCHED", attempt: 2, idempotencyKey: op.idempotencyKey }),
    );
  });

  test("recovery: a lease that expires while DISPATCHED becomes UNKNOWN by the system, and the late worker is fenced out", async ({
    request,
  }) => {
    const client = api(request);
    const { op } = await plannedOperation(request, { effect: "IDEMPOTENT" });
    const { fence, op: dispatched } = await claimAndDispatch(client, op.id, { workerId: "worker-gone", leaseMs: 300 });
    const leaseExpiresAt = Date.parse(dispatched.leaseExpiresAt ?? "");

    await expect
      .poll(async () => ((await client.getOp(op.id)).body as OperationDetail | undefined)?.phase, {
        timeout: 10_000,
        intervals: [100],
      })
      .toBe("UNKNOWN");

    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail.fence).toBe(fence + 1);
    expect(detail.leaseOwner).toBeNull();
    expect(detail.decision.action).toBe("RECONCILE");
    expect(detail.attempts).toEqual([expect.objectContaining({ number: 1, result: "unknown" })]);
    const recovered = detail.audit.find((e) => e.toPhase === "UNKNOWN");
    expect(recovered).toEqual(
      expect.objectContaining({ actorType: "system", fromPhase: "DISPATCHED", toPhase: "UNKNOWN" }),
    );
    expect(Date.parse(recovered?.createdAt ?? "")).toBeGreaterThanOrEqual(leaseExpiresAt);
    expect(recovered?.reason).toContain("worker-gone");

    // The worker comes back with its answer: refused, the operation stays UNKNOWN for a person to resolve.
    expectProblem(await client.outcome(op.id, { fence, result: "confirmed", providerId: "late" }), 409, "stale_fence");
    expect(expectJson(await client.getOp(op.id), 200)).toEqual(
      expect.objectContaining({ phase: "UNKNOWN", providerId: null }),
    );
  });
});

test.describe("GET /api/v1/operations and /api/v1/operations/{id}", () => {
  test("newest first, with cursor pagination", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("list");
    await putContract(request, tool);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(expectJson(await client.plan({ tool, args: { i } }), 201).id);
    const newestFirst = [...ids].reverse();

    const page1 = expectJson(await client.list({ tool, limit: 2 }), 200);
    expect(page1.items.map((o) => o.id)).toEqual(newestFirst.slice(0, 2));
    expect(typeof page1.nextCursor).toBe("string");
    const page2 = expectJson(await client.list({ tool, limit: 2, cursor: page1.nextCursor ?? "" }), 200);
    expect(page2.items.map((o) => o.id)).toEqual(newestFirst.slice(2, 4));
    const page3 = expectJson(await client.list({ tool, limit: 2, cursor: page2.nextCursor ?? "" }), 200);
    expect(page3.items.map((o) => o.id)).toEqual(newestFirst.slice(4));
    expect(page3.nextCursor).toBeNull();

    const all = expectJson(await client.list({ tool }), 200);
    expect(all.items.map((o) => o.id)).toEqual(newestFirst);
    expect(all.nextCursor).toBeNull();
    for (const item of all.items) expect(item.decision.action).toBe("DISPATCH");
  });

  test("filters by phase, tool, effect and runId", async ({ request }) => {
    const client = api(request);
    const runId = uniqueId("run");
    const pureTool = uniqueTool("pure");
    const idemTool = uniqueTool("idem");
    await putContract(request, pureTool, { effect: "PURE" });
    await putContract(request, idemTool, { effect: "IDEMPOTENT" });
    const p1 = expectJson(await client.plan({ tool: pureTool, args: { n: 1 }, runId }), 201);
    const p2 = expectJson(await client.plan({ tool: pureTool, args: { n: 2 }, runId }), 201);
    const i1 = expectJson(await client.plan({ tool: idemTool, args: { n: 3 }, runId }), 201);
    const other = expectJson(await client.plan({ tool: idemTool, args: { n: 4 }, runId: uniqueId("run") }), 201);
    await claimAndDispatch(client, p2.id);

    const ids = async (params: Record<string, string | number>) =>
      expectJson(await client.list(params), 200).items.map((o) => o.id);
    expect(await ids({ runId })).toEqual([i1.id, p2.id, p1.id]);
    expect(await ids({ runId, effect: "PURE" })).toEqual([p2.id, p1.id]);
    expect(await ids({ runId, effect: "IDEMPOTENT" })).toEqual([i1.id]);
    expect(await ids({ tool: idemTool })).toEqual([other.id, i1.id]);
    expect(await ids({ tool: pureTool, phase: "DISPATCHED" })).toEqual([p2.id]);
    expect(await ids({ tool: pureTool, phase: "PLANNED" })).toEqual([p1.id]);
    expect(await ids({ runId, phase: "CONFIRMED" })).toEqual([]);
    const dispatched = expectJson(await client.list({ phase: "DISPATCHED", limit: 200 }), 200).items;
    expect(dispatched.every((o) => o.phase === "DISPATCHED")).toBe(true);
    expect(dispatched.map((o) => o.id)).toContain(p2.id);
  });

  test("limit above 200 (or below 1, or not a number) and an unknown phase are 400 problems", async ({ request }) => {
    const client = api(request);
    const over = expectProblem(await client.list({ limit: 201 }), 400, "invalid_body");
    expect(errorFields(over)).toEqual(["limit"]);
    expectProblem(await client.list({ limit: 0 }), 400, "invalid_body");
    expectProblem(await client.list({ limit: "ten" }), 400, "invalid_body");
    expect(errorFields(expectProblem(await client.list({ phase: "SOMEWHERE" }), 400, "invalid_body"))).toEqual([
      "phase",
    ]);
    expect(errorFields(expectProblem(await client.list({ effect: "MAYBE" }), 400, "invalid_body"))).toEqual(["effect"]);
    const max = expectJson(await client.list({ limit: 200 }), 200);
    expect(max.items.length).toBeLessThanOrEqual(200);
  });

  test("the detail has attempts and audit arrays; an unknown id is a 404 problem everywhere", async ({ request }) => {
    const client = api(request);
    const { op } = await plannedOperation(request);
    const detail = expectJson(await client.getOp(op.id), 200);
    expect(Array.isArray(detail.attempts)).toBe(true);
    expect(Array.isArray(detail.audit)).toBe(true);
    expect(detail.audit[0]).toEqual(
      expect.objectContaining({ action: "operation.planned", toPhase: "PLANNED", actorType: "api_key" }),
    );
    expect(detail.decision).toEqual(expect.objectContaining({ action: "DISPATCH" }));

    const missing = "01ZZZZZZZZZZZZZZZZZZZZZZZZ";
    expectProblem(await client.getOp(missing), 404, "not_found");
    expectProblem(await client.claim(missing, { workerId: "w", leaseMs: 1000 }), 404, "not_found");
    expectProblem(await client.heartbeat(missing, { fence: 1, leaseMs: 1000 }), 404, "not_found");
    expectProblem(await client.dispatch(missing, { fence: 1 }), 404, "not_found");
    expectProblem(await client.outcome(missing, { fence: 1, result: "confirmed" }), 404, "not_found");
    expectProblem(await client.reconcile(missing, { outcome: "applied", evidence: {} }), 404, "not_found");
    expectProblem(await client.approve(missing, { actor: "a", reason: "b" }), 404, "not_found");
    expectProblem(await client.reject(missing, { actor: "a", reason: "b" }), 404, "not_found");
    expectProblem(await client.getOp("no-such-operation"), 404, "not_found");
  });
});

test.describe("metrics and OpenAPI", () => {
  const counter = (m: Map<string, number>, name: string) => {
    const v = m.get(name);
    expect(v, `${name} is exported`).toBeDefined();
    return v!;
  };

  test("metrics: every series docs/api.md names, with values that moved with what happened", async ({ request }) => {
    const client = api(request);
    const { key } = await personKey();
    const read = async () => {
      const r = await client.metrics();
      expect(r.status).toBe(200);
      expect(r.contentType).toMatch(/^text\/plain/);
      return parsePrometheus(r.text);
    };
    const before = await read();

    // A duplicate rejection.
    const dup = await plannedOperation(request, {}, { idempotencyKey: uniqueId("key"), args: { n: 1 } });
    expectProblem(
      await client.plan({ tool: dup.tool, idempotencyKey: dup.op.idempotencyKey, args: { n: 2 } }),
      422,
      "idempotency_key_reused",
    );
    // A stale fence.
    const stale = await plannedOperation(request);
    const old = expectJson(await client.claim(stale.op.id, { workerId: "a", leaseMs: 100 }), 200);
    await sleep(250);
    expectJson(await client.claim(stale.op.id, { workerId: "b", leaseMs: 60_000 }), 200);
    expectProblem(await client.dispatch(stale.op.id, { fence: old.fence }), 409, "stale_fence");
    // An approval interruption.
    const nonRetryable = await plannedOperation(request, { effect: "NON_RETRYABLE" });
    const nr = await claimAndDispatch(client, nonRetryable.op.id);
    expectJson(
      await client.outcome(nonRetryable.op.id, { fence: nr.fence, result: "failed", error: { httpStatus: 503 } }),
      200,
    );
    expectJson(await api(request, key).approve(nonRetryable.op.id, { actor: "erin", reason: "ok" }), 200);
    // A retry of an IDEMPOTENT tool (attempt 2), confirmed.
    const idem = await plannedOperation(request, { effect: "IDEMPOTENT", backoff: { baseMs: 0, maxMs: 0 } });
    const id1 = await claimAndDispatch(client, idem.op.id);
    expectJson(
      await client.outcome(idem.op.id, { fence: id1.fence, result: "failed", error: { httpStatus: 502 } }),
      200,
    );
    expectJson(await client.dispatch(idem.op.id, { fence: id1.fence }), 200);
    expectJson(await client.outcome(idem.op.id, { fence: id1.fence, result: "confirmed" }), 200);
    // One operation left UNKNOWN, one reconciled.
    const unknown = await plannedOperation(request);
    const u = await claimAndDispatch(client, unknown.op.id);
    expectJson(await client.outcome(unknown.op.id, { fence: u.fence, result: "unknown" }), 200);
    const rec = await plannedOperation(request);
    const r = await claimAndDispatch(client, rec.op.id);
    expectJson(await client.outcome(rec.op.id, { fence: r.fence, result: "unknown" }), 200);
    expectJson(await client.reconcile(rec.op.id, { outcome: "applied", evidence: { by: "lookup" } }), 200);

    const after = await read();
    const grew = (name: string, by: number) =>
      expect(counter(after, name), name).toBeGreaterThanOrEqual(counter(before, name) + by);
    grew("opledger_duplicate_rejections_total", 1);
    grew("opledger_stale_fence_rejections_total", 1);
    grew("opledger_approval_interruptions_total", 1);
    grew("opledger_reconciliations_total", 1);
    grew('opledger_retries_total{effect="IDEMPOTENT"}', 1);
    for (const effect of ["PURE", "IDEMPOTENT", "REPLAYABLE", "UNKNOWN", "NON_RETRYABLE"]) {
      counter(after, `opledger_retries_total{effect="${effect}"}`);
    }
    expect(counter(after, "opledger_unknown_outcomes")).toBeGreaterThanOrEqual(1);

    // Operations by phase: a series per phase, the six of the design at least, agreeing with the UNKNOWN gauge.
    const byPhase = new Map<string, number>();
    for (const [sample, value] of after) {
      const phase = /\{.*phase="([A-Z_]+)".*\}$/.exec(sample)?.[1];
      if (phase) byPhase.set(phase, value);
    }
    for (const phase of ["PLANNED", "AUTHORIZED", "DISPATCHED", "CONFIRMED", "UNKNOWN", "RECONCILED"]) {
      expect(byPhase.has(phase), `operations by phase has ${phase}`).toBe(true);
    }
    expect(byPhase.get("UNKNOWN")).toBe(counter(after, "opledger_unknown_outcomes"));
    expect(byPhase.get("CONFIRMED")).toBeGreaterThanOrEqual(1);
    expect(byPhase.get("RECONCILED")).toBeGreaterThanOrEqual(1);
    for (const [sample, value] of after) {
      // Counts are whole numbers; the seconds series (backoff waited, the attempt histogram's sum) are not.
      const seconds = /^opledger_\w+_seconds(_total|_sum)\b/.test(sample);
      expect((seconds ? Number.isFinite(value) : Number.isInteger(value)) && value >= 0, `${sample} = ${value}`).toBe(
        true,
      );
    }

    // A scraper sends a key like any client.
    expectProblem(await api(request, null).metrics(), 401, "unauthorized");
  });

  test("openapi.json is served as OpenAPI 3.1.0 and describes every path of docs/api.md", async ({ request }) => {
    const result = await api(request, null).get<{
      openapi: string;
      info?: { title?: string };
      paths: Record<string, Record<string, unknown>>;
    }>("/api/v1/openapi.json");
    const doc = expectJson(result, 200);
    expect(doc.openapi).toBe("3.1.0");
    expect(typeof doc.info?.title).toBe("string");
    const paths = Object.keys(doc.paths);
    for (const p of [
      "/api/v1/contracts",
      "/api/v1/contracts/{tool}",
      "/api/v1/operations",
      "/api/v1/operations/{id}",
      "/api/v1/operations/{id}/claim",
      "/api/v1/operations/{id}/heartbeat",
      "/api/v1/operations/{id}/dispatch",
      "/api/v1/operations/{id}/outcome",
      "/api/v1/operations/{id}/reconcile",
      "/api/v1/operations/{id}/approve",
      "/api/v1/operations/{id}/reject",
      "/api/v1/metrics",
    ]) {
      expect(paths, `openapi.json describes ${p}`).toContain(p);
    }
    expect(Object.keys(doc.paths["/api/v1/contracts/{tool}"] ?? {})).toEqual(expect.arrayContaining(["get", "put"]));
    expect(Object.keys(doc.paths["/api/v1/operations"] ?? {})).toEqual(expect.arrayContaining(["get", "post"]));
  });
});
