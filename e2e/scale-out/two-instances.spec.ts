// Issue #7: two server instances on one PostgreSQL, agents and operators racing through both: one operation per key,
// one lease per fence, one attempt per grant, one approval per request, one recovery per expired lease.
import type { APIRequestContext } from "@playwright/test";
import { E2E_BASE_URL, expect, test } from "../fixtures";
import {
  api,
  createKey,
  E2E_DB_URL,
  expectJson,
  putContract,
  uniqueId,
  uniqueTool,
  userIdOf,
  type Api,
  type ApiResult,
  type Lease,
  type Operation,
  type OperationDetail,
  type Page,
  type Problem,
} from "../fixtures/api";
import { ensureUser, TEST_USER_PASSWORD } from "../fixtures/login";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { E2E_ENGINE } from "./support/fresh-database";

const KEYS = 12;
const AGENTS_PER_KEY = 8;
const APPROVALS = 12;
const EXPIRING = 16;

test.describe.configure({ mode: "serial" });

test.describe("two server instances on one PostgreSQL", () => {
  test.skip(
    E2E_ENGINE === "sqlite",
    "one SQLite file serves one server process (docs/decisions/003); run with OPLEDGER_E2E_DATABASE_URL=postgresql://...",
  );

  let second: ServerProcess;
  const contexts: APIRequestContext[] = [];
  /** The two instances: [0] is Playwright's webServer, [1] the one this spec starts on the same database. */
  let instances: [Api, Api];
  const via = (n: number): Api => instances[n % 2]!;
  const figures: string[] = [];

  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(180_000);
    second = await ServerProcess.start({ name: "second instance", port: extraPort(1), databaseUrl: E2E_DB_URL });
    contexts.push(await playwright.request.newContext({ baseURL: E2E_BASE_URL }));
    contexts.push(await playwright.request.newContext({ baseURL: second.url }));
    instances = [api(contexts[0]!), api(contexts[1]!)];
  });

  test.afterAll(async () => {
    for (const line of figures) console.log(`[two-instances] ${line}`);
    for (const context of contexts) await context.dispose();
    if (second) {
      const stopped = await second.stop("SIGTERM");
      expect(stopped.code, second.logs().slice(-2000)).toBe(0);
    }
  });

  async function tool(overrides: Parameters<typeof putContract>[2] = {}): Promise<string> {
    const name = uniqueTool("scale");
    await putContract(contexts[0]!, name, overrides);
    return name;
  }

  const detail = async (id: string, n = 0) => expectJson(await via(n).getOp(id), 200);
  const count = (op: OperationDetail, action: string) => op.audit.filter((e) => e.action === action).length;
  const code = (result: ApiResult) => (result.body as Problem | undefined)?.code;
  const statuses = (results: ApiResult[]) => results.map((r) => `${r.status}${code(r) ? ` ${code(r)}` : ""}`).sort();

  /** The ids of `tool`'s operations, every page of them. */
  async function operationsOf(name: string): Promise<Operation[]> {
    const items: Operation[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Operation> = expectJson(
        await via(items.length).list({ tool: name, limit: 200, ...(cursor ? { cursor } : {}) }),
        200,
      );
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  test("agents race through both instances: one operation per key, one lease per fence, one attempt per dispatch", async () => {
    test.setTimeout(120_000);
    const name = await tool({ effect: "IDEMPOTENT", idempotencyKey: "required" });
    const keys = Array.from({ length: KEYS }, () => uniqueId("key"));

    // Every agent plans the same keys at the same moment, half of them through each instance.
    const plans = await Promise.all(
      keys.flatMap((key, k) =>
        Array.from({ length: AGENTS_PER_KEY }, (_, j) =>
          via(j + k).plan({ tool: name, args: { key }, idempotencyKey: key }),
        ),
      ),
    );
    const ids: string[] = [];
    for (let k = 0; k < KEYS; k++) {
      const mine = plans.slice(k * AGENTS_PER_KEY, (k + 1) * AGENTS_PER_KEY);
      expect(statuses(mine), `plans of ${keys[k]}`).toEqual(["200", "200", "200", "200", "200", "200", "200", "201"]);
      const id = (mine[0]!.body as Operation).id;
      for (const result of mine) expect((result.body as Operation).id).toBe(id);
      ids.push(id);
    }
    const listed = await operationsOf(name);
    expect(listed.map((op) => op.id).sort()).toEqual([...ids].sort());

    // Every agent claims every operation at the same moment through both instances: one lease each, the others 409.
    const claims = await Promise.all(
      ids.flatMap((id, k) =>
        Array.from({ length: AGENTS_PER_KEY }, (_, j) =>
          via(j + k + 1).claim(id, { workerId: `agent-${j}`, leaseMs: 60_000 }),
        ),
      ),
    );
    const winners: { id: string; fence: number; workerId: string }[] = [];
    for (let k = 0; k < KEYS; k++) {
      const mine = claims.slice(k * AGENTS_PER_KEY, (k + 1) * AGENTS_PER_KEY);
      const won = mine.filter((r) => r.status === 200);
      expect(won, `claims of ${ids[k]}: ${statuses(mine).join(", ")}`).toHaveLength(1);
      for (const lost of mine.filter((r) => r.status !== 200)) {
        expect(lost.status).toBe(409);
        expect(["lease_held", "write_conflict"]).toContain(code(lost));
      }
      const lease = won[0]!.body as Lease;
      expect(lease.fence).toBe(1);
      winners.push({ id: ids[k]!, fence: lease.fence, workerId: lease.operation.leaseOwner! });
    }

    // Each winner sends its dispatch twice at once, through both instances: one attempt is granted, never two.
    const dispatches = await Promise.all(
      winners.flatMap((w) => [0, 1].map((n) => via(n).dispatch(w.id, { fence: w.fence }))),
    );
    for (let k = 0; k < KEYS; k++) {
      const pair = dispatches.slice(2 * k, 2 * k + 2);
      expect(
        pair.filter((r) => r.status === 200),
        `dispatches of ${winners[k]!.id}: ${statuses(pair).join(", ")}`,
      ).toHaveLength(1);
      expect(pair.find((r) => r.status !== 200)!.status).toBe(409);
    }
    // And reports its outcome through the other instance.
    await Promise.all(
      winners.map(async (w, k) => {
        const done = expectJson(
          await via(k + 1).outcome(w.id, { fence: w.fence, result: "confirmed", providerId: `p-${w.id}` }),
          200,
        );
        expect(done.phase).toBe("CONFIRMED");
      }),
    );
    for (const [k, w] of winners.entries()) {
      const op = await detail(w.id, k);
      expect(op.phase).toBe("CONFIRMED");
      expect(op.fence).toBe(1);
      expect(op.attempt).toBe(1);
      expect(op.attempts.map((a) => [a.number, a.fence, a.result, a.workerId])).toEqual([
        [1, 1, "confirmed", w.workerId],
      ]);
      expect(count(op, "operation.planned")).toBe(1);
      expect(count(op, "operation.lease_claimed") + count(op, "operation.lease_taken_over")).toBe(1);
      expect(count(op, "operation.dispatched")).toBe(1);
      expect(count(op, "operation.confirmed")).toBe(1);
    }
    figures.push(
      `${KEYS} keys × ${AGENTS_PER_KEY} agents: ${plans.length} concurrent plans -> ${KEYS} operations; ${claims.length} ` +
        `concurrent claims -> ${KEYS} leases; ${dispatches.length} dispatches -> ${KEYS} attempts; ${KEYS} ` +
        "outcomes CONFIRMED",
    );
  });

  test("two operators approve the same operation at once through the two instances: one approval, one refusal", async () => {
    test.setTimeout(120_000);
    const name = await tool({ effect: "NON_RETRYABLE", approval: "required", maxAttempts: 1 });
    const planned = await Promise.all(
      Array.from({ length: APPROVALS }, (_, i) =>
        via(i).plan({ tool: name, args: { i }, idempotencyKey: uniqueId("approve") }),
      ),
    );
    const ids = planned.map((r) => {
      const op = expectJson(r, 201);
      expect(op.phase).toBe("AWAITING_APPROVAL");
      return op.id;
    });

    // Two operators, each through a key bound to them (only a person approves; the bootstrap key planned), alice on
    // the first instance and bob on the second.
    const people = ["alice@opledger.test", "bob@opledger.test"] as const;
    await Promise.all(people.map((email) => ensureUser({ email, password: TEST_USER_PASSWORD, role: "operator" })));
    const [alice, bob] = await Promise.all(
      people.map(async (email, n) => api(contexts[n]!, (await createKey(["operator"], { owner: email })).key)),
    );
    const personIds = await Promise.all(people.map((email) => userIdOf(email)));
    const races = await Promise.all(
      ids.map((id) =>
        Promise.all([
          alice!.approve(id, { reason: "checked with the customer" }),
          bob!.approve(id, { reason: "looks right" }),
        ]),
      ),
    );
    let aliceWon = 0;
    for (const [k, pair] of races.entries()) {
      const won = pair.filter((r) => r.status === 200);
      expect(won, `approvals of ${ids[k]}: ${statuses(pair).join(", ")}`).toHaveLength(1);
      const lost = pair.find((r) => r.status !== 200)!;
      expect(lost.status).toBe(409);
      expect(["not_awaiting_approval", "write_conflict"]).toContain(code(lost));
      if (pair[0].status === 200) aliceWon++;
    }

    // The one grant is one attempt: the dispatch raced through both instances runs once, and nothing is left to grant.
    for (const [k, id] of ids.entries()) {
      const lease = expectJson(await via(k).claim(id, { workerId: `runner-${k}`, leaseMs: 60_000 }), 200);
      const pair = await Promise.all([0, 1].map((n) => via(n).dispatch(id, { fence: lease.fence })));
      expect(
        pair.filter((r) => r.status === 200),
        statuses(pair).join(", "),
      ).toHaveLength(1);
      expectJson(await via(k + 1).outcome(id, { fence: lease.fence, result: "confirmed", providerId: `p-${id}` }), 200);
      const op = await detail(id, k);
      expect(op.phase).toBe("CONFIRMED");
      expect(op.approvedAttempt).toBe(1);
      expect(op.attempts).toHaveLength(1);
      expect(count(op, "operation.approved")).toBe(1);
      const approval = op.audit.find((e) => e.action === "operation.approved")!;
      expect(personIds).toContain(approval.onBehalfOf);
    }
    figures.push(
      `${APPROVALS} operations × 2 operators approving at once through both instances -> ${APPROVALS} approvals ` +
        `(alice ${aliceWon}, bob ${APPROVALS - aliceWon}), ${APPROVALS} refusals, ${APPROVALS} attempts`,
    );
  });

  test("expired leases under both instances' sweeps: each recovered once, a late report either wins or is refused", async () => {
    test.setTimeout(120_000);
    const name = await tool({ effect: "IDEMPOTENT" });
    const leaseMs = 300;
    const sweptBefore = movedBySecond();
    // Every operation is dispatched under a long lease first, so that a slow machine cannot expire it too early.
    const leases = await Promise.all(
      Array.from({ length: EXPIRING }, async (_, i) => {
        const op = expectJson(await via(i).plan({ tool: name, args: { i }, idempotencyKey: uniqueId("expire") }), 201);
        const lease = expectJson(await via(i + 1).claim(op.id, { workerId: `mortal-${i}`, leaseMs: 60_000 }), 200);
        expectJson(await via(i).dispatch(op.id, { fence: lease.fence }), 200);
        return { id: op.id, fence: lease.fence };
      }),
    );
    // Then all leases are cut to 300 ms at once. Half the workers die (never report); the other half report just as
    // their lease runs out, racing both instances' sweeps.
    const runs = await Promise.all(
      leases.map(async ({ id, fence }, i) => {
        expectJson(await via(i + 1).heartbeat(id, { fence, leaseMs }), 200);
        if (i % 2 === 0) return { id, late: null };
        await new Promise((resolve) => setTimeout(resolve, leaseMs + (i % 4) * 50 - 50));
        const late = await via(i).outcome(id, { fence, result: "confirmed", providerId: `late-${i}` });
        return { id, late };
      }),
    );
    // Wait for every operation to settle, then let both sweeps run several more times over them.
    await expect
      .poll(async () => (await operationsOf(name)).filter((op) => op.phase === "DISPATCHED").length, {
        timeout: 30_000,
      })
      .toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));

    let recovered = 0;
    let lateWon = 0;
    for (const [i, run] of runs.entries()) {
      const op = await detail(run.id, i);
      const sweeps = op.audit.filter((e) => e.action === "operation.outcome_unknown");
      const where =
        `${run.id}: ${op.phase}, late report ${run.late ? `${run.late.status} ${code(run.late) ?? ""}` : "none"}, ` +
        `${sweeps.length} sweep record(s)`;
      if (run.late?.status === 200) {
        // The worker's report won the race: no sweep may undo it.
        expect(op.phase, where).toBe("CONFIRMED");
        expect(sweeps, where).toHaveLength(0);
        lateWon++;
        continue;
      }
      if (run.late) {
        expect(run.late.status, where).toBe(409);
        expect(["stale_fence", "not_dispatched", "write_conflict"], where).toContain(code(run.late));
      }
      expect(op.phase, where).toBe("UNKNOWN");
      expect(sweeps, where).toHaveLength(1);
      expect(sweeps[0]!.actorType, where).toBe("system");
      expect(op.fence, where).toBe(2);
      expect(
        op.attempts.map((a) => a.result),
        where,
      ).toEqual(["unknown"]);
      recovered++;
    }
    expect(recovered).toBeGreaterThanOrEqual(EXPIRING / 2);
    figures.push(
      `${EXPIRING} expired leases (${EXPIRING / 2} late reports raced the sweeps): ${recovered} recovered ` +
        `exactly once, ${lateWon} late reports won; the second instance's sweep moved ${movedBySecond() - sweptBefore}`,
    );
  });

  /** How many operations the second instance's sweep moved so far, from its log. */
  function movedBySecond(): number {
    return [...second.logs().matchAll(/recovery sweep moved (\d+) operation/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  }
});
