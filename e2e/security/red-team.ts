// The red team (issue #16): with nothing but an agent key, try every path the code has to a second attempt of a
// NON_RETRYABLE call without a person. The paths come from the route table and the build's server-action manifest, so
// a new one cannot be forgotten; a fake provider counts the effects of an agent that calls it whenever dispatch says
// yes. Defined here and run by e2e/security/red-team.spec.ts (and, on PostgreSQL, by e2e/api/red-team.spec.ts).
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, request as requests, test, type APIRequestContext } from "@playwright/test";
import {
  api,
  createFreshKey,
  E2E_DB_URL,
  expectJson,
  putContract,
  uniqueId,
  uniqueTool,
  userIdOf,
  type Api,
  type ApiResult,
  type Operation,
  type OperationDetail,
  type OutcomeInput,
  type Problem,
} from "../fixtures/api";
import { E2E_BASE_URL, REPO_ROOT, TEST_ADMIN_EMAIL } from "../fixtures/test-env";
import { MATRIX, type RouteRow } from "./matrix";
import { securityUser, signedIn, type PrincipalClient } from "./principals";
import { callAction, exposedActions, refusedBeforeRunning, type ExposedAction } from "./server-actions";
import { fourEyesOnReplays } from "./red-team-four-eyes";
import { routeHandlers, serverActions } from "./surface";

const ENGINE = E2E_DB_URL.startsWith("file:") ? "SQLite" : "PostgreSQL";
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const FOREIGN_ORIGIN = "https://evil.example";

// ---------------------------------------------------------------------------------------------------------------
// The list: every write path the code has, and why it cannot give an agent a second attempt

/** The routes that write, each with the answer the red team expects for it. Methods answered 405 come from MATRIX. */
const ROUTES: Record<string, string> = {
  "POST /api/auth/[...nextauth]":
    "a person's sign-in: the agent's key is no password, so no session (and no console action) comes of it",
  "POST /api/v1/[[...path]]": "no such endpoint (retry, attempts): 404",
  "PUT /api/v1/[[...path]]": "no such endpoint: 404",
  "PATCH /api/v1/[[...path]]": "no such endpoint: 404",
  "DELETE /api/v1/[[...path]]": "no such endpoint: 404",
  "PUT /api/v1/contracts/[tool]": "weakening the contract (another class, approval off): admin scope only, 403",
  "POST /api/v1/operations":
    "planning the call again: its key is the same operation (200, nothing new), changed args 422, another key's key 422",
  "POST /api/v1/operations/[id]/claim": "a new lease and fence: never an attempt; another key's operation 404",
  "POST /api/v1/operations/[id]/heartbeat": "extends a lease: stale fence 409; another key's operation 404",
  "POST /api/v1/operations/[id]/dispatch":
    "the gate: 409 (approval_required, reconcile_required, already_finished; past the approval's deadline " +
    "lease_expired, as expiry releases the lease); stale fence 409; another key's 404",
  "POST /api/v1/operations/[id]/outcome":
    "a report: only of a DISPATCHED attempt with its live fence (else 409); a transient failure of a " +
    "NON_RETRYABLE call still needs a person",
  "POST /api/v1/operations/[id]/reconcile":
    "evidence only: approveRetry is the human gate, 403 person_required; another key's operation 404",
  "POST /api/v1/operations/[id]/approve": "the human gate: 403 person_required, whatever `actor` says",
  "POST /api/v1/operations/[id]/reject": "the agent gives up its own operation: it ends, never runs again",
  "POST /api/v1/operations/[id]/replay":
    "a replay runs the tool again as a new operation: a person's decision, 403 person_required; another key's operation 404",
  "POST /api/v1/bulk": "acting on many operations at once (approve among them): operator scope, 403",
  "POST /api/v1/bulk/[jobId]/cancel": "operator scope: 403",
  "PUT /api/v1/webhooks/[name]": "pointing notifications elsewhere: admin scope only, 403",
  "DELETE /api/v1/webhooks/[name]": "silencing notifications: admin scope only, 403",
  "POST /api/v1/webhooks/[name]/test": "admin scope only, 403",
  "PUT /api/v1/dependencies/[name]/breaker":
    "loosening the breaker: admin scope only, 403 (and a breaker never grants a NON_RETRYABLE attempt)",
  "PUT /api/v1/runs/[runId]":
    "a run's allowance can only bound retries (the gate stops a retry it cannot give), never grant one; own runs only",
  "POST /mcp":
    "the MCP gateway: only `<upstream>__<tool>` tools with a contract, through the same plan/dispatch/outcome " +
    "with the agent's own key; anything else answers isError and is not forwarded",
  "DELETE /mcp": "ends an MCP session: the gateway keeps none, nothing changes",
};

/** The server actions, each with the answer the red team expects for it: a console session only, and never cross-site. */
const ACTIONS: Record<string, string> = {
  "lib/console/actions/operation-actions.ts#approveOperationAction":
    "the human gate in the console: a session only (the agent's key: unauthenticated); cross-site: aborted, not run",
  "lib/console/actions/operation-actions.ts#reconcileOperationAction":
    "approveRetry in the console: a session only; cross-site: aborted, not run",
  "lib/console/actions/operation-actions.ts#rejectOperationAction":
    "a person's decision: a session only; cross-site: aborted",
  "lib/console/actions/lookup-actions.ts#lookupOperationAction":
    "a provider lookup (evidence, never an attempt): a session only",
  "lib/console/actions/dependency-actions.ts#forceDependencyBreaker":
    "a breaker override: a session only; cross-site: aborted",
  "lib/console/actions/dependency-actions.ts#editBreakerSettings":
    "breaker settings: an admin's session only; cross-site: aborted",
  "lib/console/actions/replay-actions.ts#replayOperationAction":
    "a replay (the tool again, a new operation): a person's session only; cross-site: aborted, not run",
  "lib/console/actions/bulk-actions.ts#previewBulkAction":
    "a bulk preview: an operator's session only; cross-site: aborted",
  "lib/console/actions/bulk-actions.ts#runBulkAction":
    "a bulk run (approvals among them): an operator's session only, on a preview of its own; cross-site: aborted",
  "lib/console/actions/bulk-actions.ts#cancelBulkAction": "an operator's session only; cross-site: aborted",
  "lib/console/actions/upstream-actions.ts#confirmToolDefinitionAction":
    "lets a changed MCP tool be called again (never an attempt of an operation): an admin's session only; cross-site: aborted",
  "lib/console/actions/webhook-actions.ts#saveWebhookAction": "where notifications go: an admin's session only",
  "lib/console/actions/webhook-actions.ts#deleteWebhookAction": "an admin's session only; cross-site: aborted",
  "lib/console/actions/webhook-actions.ts#sendTestEventAction": "an admin's session only; cross-site: aborted",
  "lib/console/actions/contract-actions.ts#saveContract":
    "weakening the contract: an admin's session only; cross-site: aborted",
  "lib/console/actions/admin-actions.ts#createUserAction":
    "making a person: an admin's session only; cross-site: aborted",
  "lib/console/actions/admin-actions.ts#changeRoleAction": "an admin's session only; cross-site: aborted",
  "lib/console/actions/admin-actions.ts#disableUserAction": "an admin's session only; cross-site: aborted",
  "lib/console/actions/admin-actions.ts#enableUserAction": "an admin's session only; cross-site: aborted",
  "lib/console/actions/admin-actions.ts#resetPasswordAction": "taking a person's password: an admin's session only",
  "lib/console/actions/admin-actions.ts#createApiKeyAction": "a key bound to a person: an admin's session only",
  "lib/console/actions/admin-actions.ts#revokeApiKeyAction": "an admin's session only; cross-site: aborted",
};

/** Route methods every principal gets a 405 for (the role matrix checks that against the code). */
function notServed(): RouteRow[] {
  return MATRIX.filter(
    (r): r is RouteRow =>
      r.kind === "route" && r.guard.kind === "everyone" && r.guard.status === 405 && WRITE_METHODS.has(r.method),
  );
}

/** Every write path: route methods from app/api, actions from lib/console/actions and from the build's manifest. */
export function writePaths(): { routes: string[]; actions: string[] } {
  const routes = routeHandlers().filter((h) => WRITE_METHODS.has(h.split(" ")[0]!));
  const actions = [...new Set([...serverActions(), ...exposedActions().keys()])];
  return { routes: routes.sort(), actions: actions.sort() };
}

/** path -> what the red team expects, for every path it knows. */
export function redTeamList(): Map<string, string> {
  const list = new Map<string, string>([...Object.entries(ROUTES), ...Object.entries(ACTIONS)]);
  for (const row of notServed()) list.set(`${row.method} ${row.route}`, "not served: 405 for everyone");
  return list;
}

// ---------------------------------------------------------------------------------------------------------------
// The fake provider: a NON_RETRYABLE charge, counted per idempotency key; every request that reaches it is an effect

type ProviderAnswer = { status: number } | "drop";

class FakeProvider {
  private server: http.Server | null = null;
  private readonly effects = new Map<string, number>();
  private readonly scripts = new Map<string, ProviderAnswer>();
  url = "";

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const key = String(req.headers["idempotency-key"] ?? "");
      req.resume();
      req.on("end", () => {
        this.effects.set(key, (this.effects.get(key) ?? 0) + 1);
        const answer = this.scripts.get(key) ?? { status: 503 };
        if (answer === "drop") {
          // The charge went through and the answer is lost on the way back.
          res.socket?.destroy();
          return;
        }
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: `charge-${key}`, status: answer.status }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/charge`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  script(key: string, answer: ProviderAnswer): void {
    this.scripts.set(key, answer);
  }

  effectsOf(key: string): number {
    return this.effects.get(key) ?? 0;
  }

  total(): number {
    return [...this.effects.values()].reduce((a, b) => a + b, 0);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The attack log: every call the red team made, with its answer, by path

interface Attack {
  path: string;
  scenario: string;
  tried: string;
  answer: string;
}

const codeOf = (result: ApiResult) => (result.body as Problem | undefined)?.code ?? "";
const answerOf = (result: ApiResult) => `${result.status}${codeOf(result) ? ` ${codeOf(result)}` : ""}`;

class AttackLog {
  readonly attacks: Attack[] = [];
  scenario = "";

  record(pathId: string, tried: string, answer: string): void {
    this.attacks.push({ path: pathId, scenario: this.scenario, tried, answer });
  }

  /** Sends one attack and checks it was refused as expected (`allowed`: answers that are no refusal but change nothing). */
  async expect(
    pathId: string,
    tried: string,
    call: () => Promise<ApiResult>,
    wanted: { status: number | number[]; code?: string | string[] },
  ): Promise<ApiResult> {
    const result = await call();
    const answer = answerOf(result);
    this.record(pathId, tried, answer);
    const statuses = Array.isArray(wanted.status) ? wanted.status : [wanted.status];
    const where = `${this.scenario}: ${tried} (${pathId}) answered ${answer}: ${result.text.slice(0, 300)}`;
    expect(statuses, where).toContain(result.status);
    if (wanted.code !== undefined) {
      expect(Array.isArray(wanted.code) ? wanted.code : [wanted.code], where).toContain(codeOf(result));
    }
    return result;
  }

  table(effectsByScenario: Map<string, number>, list: Map<string, string>): string {
    const byPath = new Map<string, Attack[]>();
    for (const a of this.attacks) byPath.set(a.path, [...(byPath.get(a.path) ?? []), a]);
    const lines = [
      `Red team on ${ENGINE}: ${this.attacks.length} attacks by an agent key on ${byPath.size} paths`,
      "",
      "| path | why it gives no second attempt | attacks | answers |",
      "| --- | --- | --- | --- |",
      ...[...byPath].map(([p, attacks]) => {
        const answers = [...new Set(attacks.map((a) => a.answer))].sort().join(", ");
        return `| \`${p}\` | ${list.get(p) ?? "(not on the list)"} | ${attacks.length} | ${answers} |`;
      }),
      "",
      "| scenario | effects at the provider |",
      "| --- | --- |",
      ...[...effectsByScenario].map(([s, n]) => `| ${s} | ${n} |`),
    ];
    return lines.join("\n");
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The agent: plan -> claim -> dispatch -> (only on 200) call the provider -> report the outcome

interface Call {
  op: Operation;
  key: string;
  workerId: string;
  fence: number;
  /** The agent's report on its attempt, and the fence it was sent with (an identical resend is answered, not redone). */
  reported: { result: OutcomeInput["result"]; fence: number } | null;
}

class Agent {
  /** The run every call of the red team's agent is planned in (a run's allowance is one of the paths attacked). */
  readonly runId = uniqueId("red-team-run");

  constructor(
    readonly client: Api,
    private readonly provider: FakeProvider,
    private readonly log: AttackLog,
  ) {}

  /** The provider call an agent makes when, and only when, dispatch answered 200. Returns what it saw. */
  private async callProvider(key: string): Promise<"ok" | "failed" | "lost"> {
    try {
      const response = await fetch(this.provider.url, {
        method: "POST",
        headers: { "idempotency-key": key, "content-type": "application/json" },
        body: JSON.stringify({ amountCents: 1200 }),
        signal: AbortSignal.timeout(5000),
      });
      await response.text();
      return response.ok ? "ok" : "failed";
    } catch {
      return "lost";
    }
  }

  /** Dispatch as an eager agent does it: a 200 sends the call at once. Returns the dispatch answer. */
  async dispatch(c: Call, fence = c.fence): Promise<{ result: ApiResult; provider: "ok" | "failed" | "lost" | null }> {
    const result = await this.client.dispatch(c.op.id, { fence });
    if (result.status !== 200) return { result, provider: null };
    return { result, provider: await this.callProvider(c.op.idempotencyKey) };
  }

  /** Reports the outcome of the attempt in flight. */
  async report(c: Call, body: Omit<OutcomeInput, "fence">): Promise<Operation> {
    const op = expectJson(await this.client.outcome(c.op.id, { ...body, fence: c.fence }), 200);
    c.reported = { result: body.result, fence: c.fence };
    return op;
  }

  /** Plans a fresh call and claims it; the first attempt is the agent's by right. */
  async plan(tool: string, leaseMs = 60_000): Promise<Call> {
    const key = uniqueId("red-team");
    const op = expectJson(
      await this.client.plan({ tool, args: { amountCents: 1200, key }, idempotencyKey: key, runId: this.runId }),
      201,
    );
    const workerId = uniqueId("red-worker");
    const lease = expectJson(await this.client.claim(op.id, { workerId, leaseMs }), 200);
    // A report before any attempt left is no attempt: refused.
    await this.log.expect(
      "POST /api/v1/operations/[id]/outcome",
      "report `failed` before anything was dispatched",
      () => this.client.outcome(op.id, { fence: lease.fence, result: "failed", error: { httpStatus: 503 } }),
      { status: 409, code: "not_dispatched" },
    );
    return { op, key, workerId, fence: lease.fence, reported: null };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The suite

export function redTeamSuite(): void {
  test.describe("red team: an agent key alone never gets a second attempt of a NON_RETRYABLE call", () => {
    test("every write route and every server action is on the red team's list, and the list names nothing else", () => {
      const { routes, actions } = writePaths();
      const list = redTeamList();
      const inCode = [...routes, ...actions];
      expect(
        {
          unclassified: inCode.filter((p) => !list.has(p)),
          notInCode: [...list.keys()].filter((p) => !inCode.includes(p)),
        },
        "classify every new POST/PUT/PATCH/DELETE route or server action in e2e/security/red-team.ts (and attack it there)",
      ).toEqual({ unclassified: [], notInCode: [] });
      // A retry endpoint would be a path of its own to classify and attack; replay and bulk are (paths()).
      expect(routes.filter((r) => /retry/i.test(r))).toEqual([]);
    });

    test(
      "every path is refused: reconcile+approveRetry, approve, replay, bulk, outcome games, another key, forged " +
        "actors, stale fences, cross-site actions; one effect per call",
      async ({ browser, request }) => {
        test.setTimeout(300_000);
        const provider = new FakeProvider();
        await provider.start();
        const log = new AttackLog();
        const effects = new Map<string, number>();
        const keyA = await createFreshKey(["agent"], { name: uniqueId("red-team-agent-A") });
        const keyB = await createFreshKey(["agent"], { name: uniqueId("red-team-agent-B") });
        const agent = new Agent(api(request, keyA.key), provider, log);
        const other = api(request, keyB.key);
        const operator: PrincipalClient = await signedIn(browser, "operator", "red-team");
        const operatorEmail = securityUser("operator", "red-team").email;
        const adminId = await userIdOf(TEST_ADMIN_EMAIL);
        try {
          const tool = uniqueTool("red.nonretryable");
          const contract = {
            effect: "NON_RETRYABLE" as const,
            idempotencyKey: "required" as const,
            approval: "not_required" as const,
            maxAttempts: 5,
            backoff: { baseMs: 10, maxMs: 20 },
          };
          await putContract(request, tool, contract);
          const expiringTool = uniqueTool("red.expiring");
          await putContract(request, expiringTool, { ...contract, approvalTtlMs: 1000 });

          const finish = async (name: string, c: Call) => {
            const detail = expectJson(await api(request).getOp(c.op.id), 200);
            expect(detail.attempt, `${name}: attempts counted by the ledger`).toBe(1);
            expect(detail.attempts, `${name}: attempt rows`).toHaveLength(1);
            expect(provider.effectsOf(c.key), `${name}: effects at the provider`).toBe(1);
            expect(
              detail.audit.filter((e) => e.action === "operation.approved" || e.action === "operation.approval_given"),
              `${name}: nobody approved anything`,
            ).toEqual([]);
            effects.set(name, provider.effectsOf(c.key));
            return detail;
          };

          /** The first attempt, by right: dispatch 200, the provider called once, then the agent's report. */
          const firstAttempt = async (c: Call, answer: ProviderAnswer) => {
            provider.script(c.key, answer);
            const first = await agent.dispatch(c);
            expect(first.result.status, first.result.text.slice(0, 300)).toBe(200);
            return first.provider!;
          };

          /** What a second key of the same agent can do to the call: nothing, and it learns nothing. */
          const otherKey = async (c: Call) => {
            const id = c.op.id;
            const n404 = { status: 404, code: "not_found" };
            await log.expect(
              "POST /api/v1/operations/[id]/claim",
              "key B claims it",
              () => other.claim(id, { workerId: "b-worker", leaseMs: 60_000 }),
              n404,
            );
            await log.expect(
              "POST /api/v1/operations/[id]/heartbeat",
              "key B heartbeats with A's fence",
              () => other.heartbeat(id, { fence: c.fence, leaseMs: 60_000 }),
              n404,
            );
            await log.expect(
              "POST /api/v1/operations/[id]/dispatch",
              "key B dispatches with A's fence",
              () => other.dispatch(id, { fence: c.fence }),
              n404,
            );
            await log.expect(
              "POST /api/v1/operations/[id]/outcome",
              "key B reports `failed` with A's fence",
              () => other.outcome(id, { fence: c.fence, result: "failed", error: { httpStatus: 503 } }),
              n404,
            );
            await log.expect(
              "POST /api/v1/operations/[id]/reconcile",
              "key B reconciles with approveRetry",
              () => other.reconcile(id, { outcome: "not_applied", evidence: { by: "B" }, approveRetry: true }),
              n404,
            );
            await log.expect(
              "POST /api/v1/operations/[id]/approve",
              "key B approves, as the admin",
              () => other.approve(id, { actor: TEST_ADMIN_EMAIL, reason: "B approves" }),
              n404,
            );
            await log.expect(
              "POST /api/v1/operations/[id]/reject",
              "key B rejects",
              () => other.reject(id, { reason: "B rejects" }),
              n404,
            );
            const replan = await log.expect(
              "POST /api/v1/operations",
              "key B plans with A's idempotency key and args",
              () => other.plan({ tool: c.op.tool, args: c.op.args, idempotencyKey: c.key }),
              { status: 422, code: "idempotency_key_reused" },
            );
            expect((replan.body as Problem).operationId, "another key's operation stays unnamed").toBeUndefined();
            expect(replan.text).not.toContain(id);
            expectProblemLike(await other.getOp(id), 404);
            const listed = expectJson(await other.list({ tool: c.op.tool, limit: 200 }), 200);
            expect(listed.items.map((o) => o.id)).not.toContain(id);
          };

          /** The human gate and every other way around it, tried on the call as it stands. */
          const gate = async (c: Call, dispatchCodes: string[]) => {
            const id = c.op.id;
            const refusedDispatch = await agent.dispatch(c);
            log.record(
              "POST /api/v1/operations/[id]/dispatch",
              "dispatch again with the live fence",
              answerOf(refusedDispatch.result),
            );
            expect(refusedDispatch.result.status, refusedDispatch.result.text.slice(0, 300)).toBe(409);
            expect(dispatchCodes).toContain(codeOf(refusedDispatch.result));
            for (const actor of [undefined, TEST_ADMIN_EMAIL, adminId, `user:${adminId}`, "system"]) {
              await log.expect(
                "POST /api/v1/operations/[id]/approve",
                actor === undefined ? "approve" : `approve as actor ${JSON.stringify(actor)}`,
                () => agent.client.approve(id, { ...(actor === undefined ? {} : { actor }), reason: "let me through" }),
                { status: 403, code: "person_required" },
              );
            }
            await log.expect(
              "POST /api/v1/operations/[id]/reconcile",
              "reconcile `not_applied` with approveRetry",
              () =>
                agent.client.reconcile(id, { outcome: "not_applied", evidence: { by: "agent" }, approveRetry: true }),
              { status: 403, code: "person_required" },
            );
            await log.expect(
              "POST /api/v1/operations/[id]/reconcile",
              "reconcile with approveRetry and a forged `actor` field",
              () =>
                agent.client.send("POST", `/api/v1/operations/${id}/reconcile`, {
                  data: { outcome: "not_applied", evidence: {}, approveRetry: true, actor: TEST_ADMIN_EMAIL },
                }),
              { status: [400, 403], code: ["invalid_body", "person_required"] },
            );
            for (const result of ["confirmed", "failed", "unknown"] as const) {
              // The very report the agent sent, again with its fence (the agent lost the answer): answered as it stands,
              // nothing new. Any other report: no attempt is in flight.
              const same = c.reported?.result === result && c.reported.fence === c.fence;
              const before = expectJson(await agent.client.getOp(id), 200);
              await log.expect(
                "POST /api/v1/operations/[id]/outcome",
                `${same ? "resend the same" : "send another"} report, \`${result}\`, with the live fence`,
                () =>
                  agent.client.outcome(id, {
                    fence: c.fence,
                    result,
                    ...(result === "failed" ? { error: { kind: "timeout" } } : {}),
                  }),
                same
                  ? { status: 200 }
                  : { status: 409, code: ["not_dispatched", "approval_expired", "already_finished"] },
              );
              const after = expectJson(await agent.client.getOp(id), 200);
              expect(
                { phase: after.phase, attempt: after.attempt, approvedAttempt: after.approvedAttempt },
                `${result} reported again changed the operation`,
              ).toEqual({ phase: before.phase, attempt: before.attempt, approvedAttempt: before.approvedAttempt });
            }
            await log.expect(
              "POST /api/v1/operations",
              "plan the same call again (same key, same args)",
              () => agent.client.plan({ tool: c.op.tool, args: c.op.args, idempotencyKey: c.key }),
              { status: 200 },
            );
            await log.expect(
              "POST /api/v1/operations",
              "plan the same key with other args",
              () => agent.client.plan({ tool: c.op.tool, args: { amountCents: 1, key: c.key }, idempotencyKey: c.key }),
              { status: 422, code: "idempotency_key_reused" },
            );
            await log.expect(
              "POST /api/v1/operations",
              "plan without a key (the contract requires one)",
              () => agent.client.plan({ tool: c.op.tool, args: c.op.args }),
              { status: 400, code: "idempotency_key_required" },
            );
            // Another worker of the same agent while the lease is live: refused. The same worker restarting takes its
            // lease again with a new fence: the old fence is stale, the new one meets the same gate.
            await log.expect(
              "POST /api/v1/operations/[id]/claim",
              "another worker of A claims the live lease",
              () => agent.client.claim(id, { workerId: uniqueId("red-second-worker"), leaseMs: 60_000 }),
              { status: 409, code: ["lease_held", "approval_expired", "already_finished"] },
            );
            const restart = await agent.client.claim(id, { workerId: c.workerId, leaseMs: 60_000 });
            log.record(
              "POST /api/v1/operations/[id]/claim",
              "the same worker claims again (a restart)",
              answerOf(restart),
            );
            if (restart.status === 200) {
              const stale = c.fence;
              c.fence = (restart.body as { fence: number }).fence;
              expect(c.fence, "a new claim is a new fence").toBeGreaterThan(stale);
              await log.expect(
                "POST /api/v1/operations/[id]/dispatch",
                "dispatch with the stale fence",
                () => agent.client.dispatch(id, { fence: stale }),
                { status: 409, code: "stale_fence" },
              );
              await log.expect(
                "POST /api/v1/operations/[id]/heartbeat",
                "heartbeat with the stale fence",
                () => agent.client.heartbeat(id, { fence: stale, leaseMs: 60_000 }),
                { status: 409, code: "stale_fence" },
              );
              await log.expect(
                "POST /api/v1/operations/[id]/outcome",
                "report `confirmed` with the stale fence",
                () => agent.client.outcome(id, { fence: stale, result: "confirmed" }),
                { status: 409, code: "stale_fence" },
              );
              const again = await agent.dispatch(c);
              log.record(
                "POST /api/v1/operations/[id]/dispatch",
                "dispatch with the new fence",
                answerOf(again.result),
              );
              expect(again.result.status, again.result.text.slice(0, 300)).toBe(409);
              expect(dispatchCodes).toContain(codeOf(again.result));
            } else {
              // A finished operation takes no lease.
              expect(restart.status, restart.text.slice(0, 300)).toBe(409);
              expect(["approval_expired", "already_finished"]).toContain(codeOf(restart));
            }
            await otherKey(c);
          };

          // 1. The provider fails (503): the gate hands the retry to a person.
          log.scenario = "503: waiting for a person";
          const s1 = await agent.plan(tool);
          expect(await firstAttempt(s1, { status: 503 })).toBe("failed");
          expect((await agent.report(s1, { result: "failed", error: { httpStatus: 503 } })).phase).toBe(
            "AWAITING_APPROVAL",
          );
          await gate(s1, ["approval_required"]);
          // A run's allowance only bounds retries: the most generous one the agent can declare grants none.
          await log.expect(
            "PUT /api/v1/runs/[runId]",
            "declare a generous allowance for its own run",
            () =>
              agent.client.send("PUT", `/api/v1/runs/${encodeURIComponent(agent.runId)}`, {
                data: { maxRetries: 100_000, maxBackoffMs: null, deadlineAt: null },
              }),
            { status: [200, 201] },
          );
          await gate(s1, ["approval_required"]);
          await paths(log, agent.client, s1, request, tool, operatorEmail);
          await crossSite(log, api(request), operator, keyA.key, s1.op.id);
          await finish(log.scenario, s1);

          // 2. The answer is lost: UNKNOWN. The agent may bring evidence, never the approval.
          log.scenario = "answer lost: UNKNOWN";
          const s2 = await agent.plan(tool);
          expect(await firstAttempt(s2, "drop")).toBe("lost");
          await agent.report(s2, { result: "unknown" });
          await gate(s2, ["reconcile_required"]);
          await crossSite(log, api(request), operator, keyA.key, s2.op.id);
          // Evidence from the agent itself ("it did not happen") is allowed, and still no attempt follows without a person.
          await log.expect(
            "POST /api/v1/operations/[id]/reconcile",
            "reconcile `not_applied` without approveRetry (evidence only)",
            () => agent.client.reconcile(s2.op.id, { outcome: "not_applied", evidence: { by: "agent" } }),
            { status: 200 },
          );
          // The reconciliation ended the lease and raised the fence: the old one is stale, and a new claim meets the gate.
          await log.expect(
            "POST /api/v1/operations/[id]/dispatch",
            "dispatch with the fence from before the reconciliation",
            () => agent.client.dispatch(s2.op.id, { fence: s2.fence }),
            { status: 409, code: "stale_fence" },
          );
          s2.fence = expectJson(
            await agent.client.claim(s2.op.id, { workerId: s2.workerId, leaseMs: 60_000 }),
            200,
          ).fence;
          await gate(s2, ["approval_required"]);
          await finish(log.scenario, s2);

          // 3. The worker dies with the call in flight: the sweep makes it UNKNOWN, another worker of A takes over, and
          // the dead worker's fence is stale for good.
          log.scenario = "worker died in flight";
          const s3 = await agent.plan(tool, 2500);
          expect(await firstAttempt(s3, { status: 200 })).toBe("ok");
          await until(async () => expectJson(await agent.client.getOp(s3.op.id), 200).phase === "UNKNOWN");
          const deadFence = s3.fence;
          s3.workerId = uniqueId("red-recovery");
          const takeover = expectJson(
            await agent.client.claim(s3.op.id, { workerId: s3.workerId, leaseMs: 60_000 }),
            200,
          );
          s3.fence = takeover.fence;
          for (const result of ["failed", "confirmed", "unknown"] as const) {
            await log.expect(
              "POST /api/v1/operations/[id]/outcome",
              `the dead worker's late \`${result}\``,
              () => agent.client.outcome(s3.op.id, { fence: deadFence, result }),
              { status: 409, code: "stale_fence" },
            );
          }
          await log.expect(
            "POST /api/v1/operations/[id]/heartbeat",
            "the dead worker's heartbeat",
            () => agent.client.heartbeat(s3.op.id, { fence: deadFence, leaseMs: 60_000 }),
            { status: 409, code: "stale_fence" },
          );
          await gate(s3, ["reconcile_required"]);
          await finish(log.scenario, s3);

          // 4. Outcome games: the agent reports failures that read as transient or never-sent; a NON_RETRYABLE call
          // still waits for a person.
          for (const error of [
            { httpStatus: 429, retryAfterMs: 0 },
            { kind: "connection_refused" },
            { kind: "timeout" },
            { kind: "ECONNRESET", message: "socket hang up" },
          ]) {
            log.scenario = `report failed ${JSON.stringify(error)}`;
            const c = await agent.plan(tool);
            expect(await firstAttempt(c, { status: 200 })).toBe("ok");
            const reported = await agent.report(c, { result: "failed", error });
            log.record(
              "POST /api/v1/operations/[id]/outcome",
              `report a charge that went through as failed ${JSON.stringify(error)}`,
              `200 ${reported.phase}`,
            );
            expect(["RETRY_SCHEDULED", "AWAITING_APPROVAL"]).toContain(reported.phase);
            await until(async () => {
              const answer = await agent.dispatch(c);
              log.record(
                "POST /api/v1/operations/[id]/dispatch",
                "dispatch after the backoff",
                answerOf(answer.result),
              );
              expect(answer.result.status, answer.result.text.slice(0, 300)).toBe(409);
              expect(["retry_not_due", "approval_required"]).toContain(codeOf(answer.result));
              return codeOf(answer.result) === "approval_required";
            });
            await gate(c, ["approval_required"]);
            await finish(log.scenario, c);
          }

          // 5. Waiting the approval out: it expires, never granted by default.
          log.scenario = "approval expired";
          const s5 = await agent.plan(expiringTool);
          expect(await firstAttempt(s5, { status: 503 })).toBe("failed");
          await agent.report(s5, { result: "failed", error: { httpStatus: 503 } });
          await until(async () => expectJson(await agent.client.getOp(s5.op.id), 200).phase === "EXPIRED");
          await log.expect(
            "POST /api/v1/operations/[id]/claim",
            "claim the expired operation",
            () => agent.client.claim(s5.op.id, { workerId: uniqueId("red-late"), leaseMs: 60_000 }),
            { status: 409, code: "approval_expired" },
          );
          // Expiring released the lease too, so a dispatch with the old fence stops at the lease, before the gate.
          await gate(s5, ["approval_expired", "lease_expired"]);
          await finish(log.scenario, s5);

          // 6. The agent gives up (reject): the operation ends and never runs again.
          log.scenario = "the agent gives up";
          const s6 = await agent.plan(tool);
          expect(await firstAttempt(s6, { status: 503 })).toBe("failed");
          await agent.report(s6, { result: "failed", error: { httpStatus: 503 } });
          await log.expect(
            "POST /api/v1/operations/[id]/reject",
            "reject its own operation, as the admin",
            () => agent.client.reject(s6.op.id, { actor: TEST_ADMIN_EMAIL, reason: "giving up" }),
            { status: 200 },
          );
          await log.expect(
            "POST /api/v1/operations/[id]/claim",
            "claim the rejected operation",
            () => agent.client.claim(s6.op.id, { workerId: uniqueId("red-late"), leaseMs: 60_000 }),
            { status: 409, code: "already_finished" },
          );
          const rejected = await finish(log.scenario, s6);
          expect(rejected.phase).toBe("REJECTED");
          const rejection = rejected.audit.find((e) => e.action === "operation.rejected")!;
          expect(rejection.actorId, "the forged actor named nobody").toBe(keyA.id);
          expect(rejection.onBehalfOf).toBeNull();

          // 7. The MCP gateway: the same call (its tool, args and key) through /mcp is no way around the gate.
          log.scenario = "through the MCP gateway";
          const mcpHeaders = {
            authorization: `Bearer ${keyA.key}`,
            accept: "application/json, text/event-stream",
            "content-type": "application/json",
          };
          const viaGateway = await request.post("/mcp", {
            headers: mcpHeaders,
            data: {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: s6.op.tool, arguments: s6.op.args, _meta: { "opledger/idempotencyKey": s6.key } },
            },
          });
          const gatewayAnswer = (await viaGateway.json()) as {
            result?: { isError?: boolean; _meta?: Record<string, unknown> };
          };
          const gatewayCode = String(gatewayAnswer.result?._meta?.["opledger/code"]);
          log.record(
            "POST /mcp",
            "call the rejected operation's tool with its args and key",
            `${viaGateway.status()} ${gatewayCode}`,
          );
          expect(viaGateway.status()).toBe(200);
          expect(gatewayAnswer.result?.isError).toBe(true);
          expect(gatewayCode).toBe("no_contract");
          const ended = await request.delete("/mcp", { headers: mcpHeaders });
          log.record("DELETE /mcp", "end a session", String(ended.status()));
          expect(ended.status()).toBe(200);
          expect(provider.effectsOf(s6.key), "the gateway forwarded nothing").toBe(1);

          // Every path of the list was attacked at least once.
          const attacked = new Set(log.attacks.map((a) => a.path));
          const list = redTeamList();
          expect(
            [...list.keys()].filter((p) => !attacked.has(p)),
            "paths on the list nobody attacked",
          ).toEqual([]);
          expect(
            [...attacked].filter((p) => !list.has(p)),
            "attacks on paths the list does not name",
          ).toEqual([]);
          expect(provider.total(), "effects at the provider: one per call").toBe(effects.size);

          const table = log.table(effects, list);
          console.log(table);
          const out = path.join(REPO_ROOT, "test-results");
          fs.mkdirSync(out, { recursive: true });
          fs.writeFileSync(path.join(out, `red-team-${ENGINE.toLowerCase()}.md`), `${table}\n`);
        } finally {
          await provider.stop();
          await operator.dispose();
        }
      },
    );
  });

  // A person and their keys: four-eyes per approval, against every principal tied to the operation (issue #27).
  fourEyesOnReplays();
}

function expectProblemLike(result: ApiResult, status: number): void {
  expect(result.status, result.text.slice(0, 300)).toBe(status);
  expect(result.contentType).toMatch(/^application\/problem\+json/);
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not there after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The paths that are not about the operation's state: routes that do not exist (replay, retry, bulk), methods no
 * route serves, the contract, next-auth's sign-in.
 */
async function paths(
  log: AttackLog,
  client: Api,
  c: Call,
  request: APIRequestContext,
  tool: string,
  personEmail: string,
): Promise<void> {
  const id = encodeURIComponent(c.op.id);
  for (const [method, target] of [
    ["POST", `/api/v1/operations/${id}/retry`],
    ["POST", `/api/v1/operations/${id}/attempts`],
    ["PUT", `/api/v1/operations/${id}/approval`],
    ["PATCH", `/api/v1/operations/${id}/phase`],
    ["DELETE", `/api/v1/operations/${id}/lease`],
  ] as const) {
    await log.expect(
      `${method} /api/v1/[[...path]]`,
      `${method} ${target.replace(id, "{id}")}`,
      () => client.send(method, target, { data: { reason: "again", args: c.op.args, ids: [c.op.id], approve: true } }),
      { status: 404, code: "not_found" },
    );
  }
  // Replay: the tool again, as a new operation. A person's decision, whatever the body says.
  for (const body of [
    { reason: "again" },
    { reason: "again", args: c.op.args },
    { reason: "again", actor: TEST_ADMIN_EMAIL },
  ]) {
    await log.expect(
      "POST /api/v1/operations/[id]/replay",
      `replay with ${JSON.stringify(Object.keys(body))}`,
      () => client.send("POST", `/api/v1/operations/${id}/replay`, { data: body }),
      { status: [400, 403], code: ["invalid_body", "person_required"] },
    );
  }
  // Bulk: an operator's; the agent's key is refused before any preview, run or cancel.
  for (const body of [
    { action: "approve", ids: [c.op.id], reason: "again", dryRun: true },
    {
      action: "reconcile",
      ids: [c.op.id],
      outcome: "not_applied",
      evidence: { by: "agent" },
      reason: "again",
      dryRun: true,
    },
    { previewId: "01JZZZZZZZZZZZZZZZZZZZZZZZ", reason: "again" },
  ]) {
    await log.expect(
      "POST /api/v1/bulk",
      `bulk ${JSON.stringify(Object.keys(body))}`,
      () => client.send("POST", "/api/v1/bulk", { data: body }),
      { status: 403, code: "forbidden" },
    );
  }
  await log.expect(
    "POST /api/v1/bulk/[jobId]/cancel",
    "cancel a bulk job",
    () => client.send("POST", "/api/v1/bulk/01JZZZZZZZZZZZZZZZZZZZZZZZ/cancel", { data: { reason: "again" } }),
    { status: 403, code: "forbidden" },
  );
  // Configuration around the gate: notifications and the breaker.
  for (const [method, target, data] of [
    [
      "PUT",
      "/api/v1/webhooks/red-team",
      { url: "https://evil.example/hook", events: ["approval.requested"], secret: "OPLEDGER_SECRET_E2E_WEBHOOK" },
    ],
    ["DELETE", "/api/v1/webhooks/red-team", {}],
    ["POST", "/api/v1/webhooks/red-team/test", {}],
  ] as const) {
    await log.expect(
      `${method} /api/v1/webhooks/[name]${target.endsWith("/test") ? "/test" : ""}`,
      `${method} ${target}`,
      () => client.send(method, target, { data }),
      { status: 403, code: "forbidden" },
    );
  }
  await log.expect(
    "PUT /api/v1/dependencies/[name]/breaker",
    "raise the failure threshold",
    () =>
      client.send("PUT", "/api/v1/dependencies/red-team/breaker", {
        data: { failureThreshold: 1000, cooldownMs: 1000, probes: 1, reason: "again", expectedVersion: 0 },
      }),
    { status: 403, code: "forbidden" },
  );
  // Paths that look like a bulk or replay endpoint but land on a route that does not serve the method.
  await log.expect(
    "POST /api/v1/operations/[id]",
    "POST /api/v1/operations/bulk",
    () => client.send("POST", "/api/v1/operations/bulk", { data: { ids: [c.op.id], action: "approve" } }),
    { status: 405 },
  );
  for (const row of notServed()) {
    const concrete = row.route
      .replace("[id]", id)
      .replace("[tool]", encodeURIComponent(tool))
      .replace("[jobId]", "01JZZZZZZZZZZZZZZZZZZZZZZZ")
      .replace("[name]", "red-team")
      .replace("[[...path]]", "retry");
    await log.expect(
      `${row.method} ${row.route}`,
      `${row.method} ${row.route}`,
      () => client.send(row.method, concrete, { data: { approveRetry: true, reason: "again" } }),
      { status: 405 },
    );
  }
  // The contract: make the tool retryable, or switch approvals off.
  for (const change of [{ effect: "IDEMPOTENT" }, { maxAttempts: 9 }, { approval: "not_required", effect: "PURE" }]) {
    await log.expect(
      "PUT /api/v1/contracts/[tool]",
      `PUT the contract with ${JSON.stringify(change)}`,
      () =>
        client.putContract(tool, {
          effect: "NON_RETRYABLE",
          idempotencyKey: "required",
          reconcile: null,
          approval: "not_required",
          maxAttempts: 5,
          backoff: { baseMs: 10, maxMs: 20 },
          ...change,
        }),
      { status: 403, code: "forbidden" },
    );
  }
  expect(expectJson(await api(request).getContract(tool), 200).version, "the contract is as it was").toBe(1);
  // next-auth: the agent's key as a person's password, and as a bearer token to the sign-in; no session comes of it.
  // Two tries only, on people of the red team's own: sign-in is throttled per account and per address.
  for (const email of [personEmail, "nobody-red-team@opledger.test"]) {
    const csrf = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const signIn = await request.post("/api/auth/callback/credentials", {
      headers: { authorization: `Bearer ${client.key ?? ""}` },
      form: { csrfToken: csrf.csrfToken, email, password: client.key ?? "", callbackUrl: "/", json: "true" },
      failOnStatusCode: false,
      maxRedirects: 0,
    });
    log.record(
      "POST /api/auth/[...nextauth]",
      "sign in as a person with the agent's key as the password",
      String(signIn.status()),
    );
    const session = (await (await request.get("/api/auth/session")).json()) as { user?: unknown };
    expect(session.user, "no session from a key").toBeUndefined();
  }
}

/**
 * The console's actions: the agent's key is no session; a person's session sent from another site (a stolen-looking
 * Origin) is aborted before the action runs. Every action the build exposes is tried both ways.
 */
async function crossSite(
  log: AttackLog,
  reader: Api,
  operator: PrincipalClient,
  agentKey: string,
  id: string,
): Promise<void> {
  const before: OperationDetail = expectJson(await reader.getOp(id), 200);
  const seen = {
    phase: before.phase,
    attempt: before.attempt,
    approvedAttempt: before.approvedAttempt,
    evidence: before.evidence,
  };
  const gateInputs: Record<string, unknown> = {
    approveOperationAction: { id, seen, reason: "approved from another site" },
    reconcileOperationAction: { id, seen, reason: "from another site", outcome: "not_applied", approveRetry: true },
    rejectOperationAction: { id, seen, reason: "from another site" },
    replayOperationAction: { id, argsText: JSON.stringify(before.args), reason: "from another site" },
  };
  const exposed = exposedActions();
  // An action no page imports is not in the manifest: no request can reach it (the role matrix checks the same).
  for (const name of serverActions().filter((n) => !exposed.has(n))) log.record(name, "call it", "not exposed");
  for (const [name, action] of exposed) {
    const input = gateInputs[name.split("#")[1]!] ?? {};
    const withKey = await callActionWithKey(action, input, agentKey);
    log.record(name, "call with the agent's key", withKey);
    expect(withKey, `${name} with the agent's key`).toBe("unauthenticated");
    for (const [how, headers] of [
      ["a person's session, from another site", { origin: FOREIGN_ORIGIN }],
      ["a person's session, marked cross-site, no Origin", { "sec-fetch-site": "cross-site" }],
    ] as const) {
      const answer = await callAction(operator.request, action, [input], headers);
      const refused = refusedBeforeRunning(answer);
      log.record(name, how, refused ?? `HTTP ${answer.status}`);
      expect(refused, `${name}, ${how}: ${answer.status} ${answer.text.slice(0, 300)}`).toBe("403 cross_site_request");
    }
  }
  const after: OperationDetail = expectJson(await reader.getOp(id), 200);
  expect({ ...after, decision: null }, "the cross-site calls changed nothing").toEqual({ ...before, decision: null });
}

/** An action called with nothing but the agent's key (a fresh context: no cookie). */
async function callActionWithKey(action: ExposedAction, input: unknown, key: string): Promise<string> {
  const context = await requests.newContext({ baseURL: E2E_BASE_URL });
  try {
    const answer = await callAction(context, action, [input], { authorization: `Bearer ${key}` });
    const result = answer.result as { ok?: boolean; code?: string } | undefined;
    return result?.ok === false ? String(result.code) : `HTTP ${answer.status}`;
  } finally {
    await context.dispose();
  }
}
