// The red team's four-eyes case (issue #27): person A holds an agent key (agent + operator scopes, bound to A), an
// operator key and a console session; A's agent key's NON_RETRYABLE call is confirmed and person B replays it. A may
// approve none of the replay's attempts (the first, and the retry A's own agent key's failure asks for) through the
// API, the console's server action or a bulk approve, and neither may B; a third person may. Run by redTeamSuite, so on
// SQLite and on PostgreSQL.
import { expect, test } from "@playwright/test";
import {
  api,
  createFreshKey,
  expectJson,
  putContract,
  uniqueId,
  uniqueTool,
  userIdOf,
  type Api,
  type Operation,
} from "../fixtures/api";
import { securityPerson, signedIn } from "./principals";
import { callAction, exposedAction } from "./server-actions";

const REASON = "red team: a person approving what their own key runs";

/** Claim, dispatch and report `result` as the agent key; the operation after the report. */
async function runAttempt(agent: Api, id: string, result: "confirmed" | "failed"): Promise<Operation> {
  const { fence } = expectJson(await agent.claim(id, { workerId: uniqueId("four-eyes-worker"), leaseMs: 60_000 }), 200);
  expectJson(await agent.dispatch(id, { fence }), 200);
  const error = result === "failed" ? { httpStatus: 503 } : undefined;
  return expectJson(await agent.outcome(id, { fence, result, ...(error ? { error } : {}) }), 200);
}

async function bulkApprovePreview(client: Api, id: string) {
  const preview = expectJson(
    await client.send<{ items: { id: string }[]; skipped: { id: string; why: string }[] }>("POST", "/api/v1/bulk", {
      data: { action: "approve", ids: [id], dryRun: true },
    }),
    200,
  );
  return { acting: preview.items.map((i) => i.id), skipped: preview.skipped.map((s) => `${s.id} ${s.why}`) };
}

export function fourEyesOnReplays(): void {
  test("four-eyes on a replay: A (three principals) and the replayer B approve none of its attempts, by API, console or bulk", async ({
    browser,
    request,
  }) => {
    test.setTimeout(120_000);
    const prefix = uniqueId("rt-4e");
    const [a, b, c] = await Promise.all(["a", "b", "c"].map((who) => securityPerson("operator", `${prefix}-${who}`)));
    const agentKeyA = api(request, (await createFreshKey(["agent", "operator"], { owner: a!.email })).key);
    const operatorKeyA = api(request, (await createFreshKey(["operator"], { owner: a!.email })).key);
    const keyB = api(request, (await createFreshKey(["operator"], { owner: b!.email })).key);
    const keyC = api(request, (await createFreshKey(["operator"], { owner: c!.email })).key);
    const consoleA = await signedIn(browser, "operator", `${prefix}-a`);
    const approveAction = exposedAction("approveOperationAction");
    try {
      const tool = uniqueTool("red.four-eyes");
      await putContract(request, tool, { effect: "NON_RETRYABLE", idempotencyKey: "required" });
      const planned = expectJson(
        await agentKeyA.plan({ tool, args: { cents: 500 }, idempotencyKey: uniqueId("charge") }),
        201,
      );
      expect((await runAttempt(agentKeyA, planned.id, "confirmed")).phase).toBe("CONFIRMED");
      const replay = expectJson(
        await keyB.send<Operation>("POST", `/api/v1/operations/${planned.id}/replay`, { data: { reason: REASON } }),
        201,
      );
      expect(replay.phase).toBe("AWAITING_APPROVAL");

      /** Every way A and B could approve the replay's pending request: each refused as four_eyes, nothing changed. */
      const everyWayRefused = async (stage: string) => {
        const before = expectJson(await api(request).getOp(replay.id), 200);
        for (const [who, client] of [
          ["A's operator key", operatorKeyA],
          ["A's agent key (bound to A)", agentKeyA],
          ["B's key (the replayer)", keyB],
        ] as const) {
          const answer = await client.approve(replay.id, { reason: REASON });
          expect(`${answer.status} ${(answer.body as { code?: string }).code}`, `${stage}: ${who}`).toBe(
            "403 four_eyes",
          );
        }
        const seen = {
          phase: before.phase,
          attempt: before.attempt,
          approvedAttempt: before.approvedAttempt,
          evidence: before.evidence,
        };
        const action = await callAction(consoleA.request, approveAction, [{ id: replay.id, seen, reason: REASON }]);
        expect(action.result, `${stage}: A's console session`).toMatchObject({ ok: false, code: "four_eyes" });
        expect(await bulkApprovePreview(operatorKeyA, replay.id), `${stage}: A's bulk approve`).toEqual({
          acting: [],
          skipped: [`${replay.id} four_eyes`],
        });
        const after = expectJson(await api(request).getOp(replay.id), 200);
        expect({ phase: after.phase, version: after.audit.length }, `${stage}: nothing changed`).toEqual({
          phase: "AWAITING_APPROVAL",
          version: before.audit.length,
        });
      };

      await everyWayRefused("the replay's first attempt");
      expect(await bulkApprovePreview(keyC, replay.id)).toEqual({ acting: [replay.id], skipped: [] });
      expect(expectJson(await keyC.approve(replay.id, { reason: "C checked it" }), 200).phase).toBe("PLANNED");

      // A's agent key runs the replay and its attempt fails: the retry it asks for is A's own request.
      expect((await runAttempt(agentKeyA, replay.id, "failed")).phase).toBe("AWAITING_APPROVAL");
      await everyWayRefused("the retry A's agent key asked for");
      expect(expectJson(await keyC.approve(replay.id, { reason: "C again" }), 200).phase).toBe("RETRY_SCHEDULED");

      const approvals = expectJson(await api(request).getOp(replay.id), 200).audit.filter(
        (e) => e.action === "operation.approved" || e.action === "operation.approval_given",
      );
      const cId = await userIdOf(c!.email);
      expect(
        approvals.map((e) => e.onBehalfOf),
        "every approval is C's",
      ).toEqual([cId, cId]);
    } finally {
      await consoleA.dispose();
    }
  });
}
