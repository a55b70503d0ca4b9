// Issue #6: restart the server in the middle of a load run (SIGKILL, then SIGTERM): every acknowledged write is there
// afterwards, a request in flight when SIGTERM arrives still gets its answer, and the server keeps working. Both
// engines.
import http from "node:http";
import type { APIRequestContext } from "@playwright/test";
import { expect, test, TEST_BOOTSTRAP_API_KEY } from "../fixtures";
import { api, expectJson, putContract, uniqueTool, type Operation } from "../fixtures/api";
import { extraPort, ServerProcess, type StopResult } from "../fixtures/server-process";
import { E2E_ENGINE, freshDatabase } from "./support/fresh-database";
import { Ledger, PROGRESS, runAgent } from "./support/load";

const AGENTS = 6;
/** Acknowledged writes in a round before the server is stopped under the agents' feet. */
const WRITES_PER_ROUND = 80;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the agents until `WRITES_PER_ROUND` writes were acknowledged, then `interrupt()` while they are still sending.
 */
async function loadRound<T>(
  request: APIRequestContext,
  ledger: Ledger,
  tool: string,
  round: string,
  interrupt: () => Promise<T>,
): Promise<T> {
  let stopped = false;
  let finished = false;
  const target = ledger.acks + WRITES_PER_ROUND;
  const agents = Promise.all(
    Array.from({ length: AGENTS }, (_, i) =>
      runAgent(request, ledger, { tool, agent: `a${i}`, round, stop: () => stopped }),
    ),
  ).finally(() => (finished = true));
  while (ledger.acks < target && !finished) await sleep(10);
  expect(finished, `the agents stopped early: ${ledger.refusals.join("; ")}`).toBe(false);
  const result = await interrupt();
  stopped = true;
  await agents;
  return result;
}

/**
 * Every write the server acknowledged is in the ledger, at least as far along as acknowledged, and a plan again finds
 * the same operation.
 */
async function expectAcknowledgedWrites(request: APIRequestContext, ledger: Ledger, tool: string): Promise<void> {
  const client = api(request);
  for (const ack of ledger.acknowledged.values()) {
    const op = expectJson(await client.getOp(ack.id), 200);
    const where =
      `${ack.id} acknowledged at ${ack.step} (${ack.phase}, attempt ${ack.attempt}, fence ${ack.fence}); now ` +
      `${op.phase}, attempt ${op.attempt}, fence ${op.fence}`;
    expect(PROGRESS[op.phase], where).toBeGreaterThanOrEqual(PROGRESS[ack.phase]!);
    expect(op.attempt, where).toBeGreaterThanOrEqual(ack.attempt);
    expect(op.fence, where).toBeGreaterThanOrEqual(ack.fence);
    if (ack.phase === "CONFIRMED") {
      expect(op.phase, where).toBe("CONFIRMED");
      expect(op.providerId, where).toBe(ack.providerId);
      expect(
        op.attempts.map((a) => a.result),
        where,
      ).toEqual(["confirmed"]);
    }
    const again = expectJson(await client.plan({ tool, args: ack.args, idempotencyKey: ack.idempotencyKey }), 200);
    expect(again.id, where).toBe(ack.id);
  }
}

/** Drives every acknowledged operation that is not CONFIRMED yet to CONFIRMED, as its agent would after the restart. */
async function finishInterrupted(request: APIRequestContext, ledger: Ledger): Promise<number> {
  const client = api(request);
  let finished = 0;
  for (const ack of ledger.acknowledged.values()) {
    const current = expectJson(await client.getOp(ack.id), 200);
    if (current.phase === "CONFIRMED") continue;
    // The same worker may claim again (the fence moves on); another worker would wait for the lease to run out.
    const lease = expectJson(await client.claim(ack.id, { workerId: ack.workerId, leaseMs: 60_000 }), 200);
    if (lease.operation.phase !== "DISPATCHED") {
      expect(expectJson(await client.dispatch(ack.id, { fence: lease.fence }), 200).phase).toBe("DISPATCHED");
    }
    const done = expectJson(
      await client.outcome(ack.id, {
        fence: lease.fence,
        result: "confirmed",
        providerId: `prov-${ack.idempotencyKey}`,
      }),
      200,
    );
    expect(done.phase).toBe("CONFIRMED");
    finished++;
  }
  return finished;
}

/**
 * A plan whose body arrives in two halves: the server has the request (headers and half the body) before `finish()`
 * sends the rest. Answers with the status and body, or rejects if the connection dies.
 */
function slowPlan(
  url: string,
  body: unknown,
): { finish: () => void; answer: Promise<{ status: number; text: string }> } {
  const bytes = Buffer.from(JSON.stringify(body));
  const half = Math.floor(bytes.length / 2);
  const target = new URL("/api/v1/operations", url);
  const req = http.request({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: "POST",
    headers: {
      authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}`,
      "content-type": "application/json",
      "content-length": bytes.length,
    },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
  });
  req.write(bytes.subarray(0, half));
  return { finish: () => req.end(bytes.subarray(half)), answer };
}

/** Whether a new connection to the server's port is accepted (a fresh socket, never one kept alive). */
function accepts(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/api/health`, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code !== "ECONNREFUSED"));
  });
}

/** Resolves once the server refuses new connections: its listener is closed and it is draining. */
async function waitUntilRefusing(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (!(await accepts(url))) return;
    await sleep(50);
  }
  throw new Error(`${url} still accepts connections 15 s after SIGTERM`);
}

test("every acknowledged write survives a SIGKILL and a SIGTERM in the middle of a load run", async ({
  playwright,
}) => {
  test.setTimeout(360_000);
  const port = extraPort(3);
  const database = await freshDatabase(`restart_${port}`);
  const start = () => ServerProcess.start({ name: `restart server (${E2E_ENGINE})`, port, databaseUrl: database.url });
  let server = await start();
  const request = await playwright.request.newContext({ baseURL: server.url });
  const figures: string[] = [];
  try {
    const tool = uniqueTool("restart");
    await putContract(request, tool, { effect: "IDEMPOTENT" });
    const ledger = new Ledger();

    // Round 1: the machine dies. Whatever the server acknowledged was committed (WAL + synchronous=FULL on SQLite).
    const killed = await loadRound(request, ledger, tool, "kill", () => server.stop("SIGKILL"));
    figures.push(
      `SIGKILL after ${ledger.acks} acknowledged writes (${ledger.unanswered} unanswered), group gone in ${killed.ms} ms`,
    );
    let begun = Date.now();
    server = await start();
    figures.push(`restart after SIGKILL: healthy in ${Date.now() - begun} ms`);
    await expectAcknowledgedWrites(request, ledger, tool);

    // Round 2: an orchestrator stops it. In-flight requests finish, new connections are refused, the process exits.
    const inFlightArgs = { inFlight: true };
    const inFlightKey = `in-flight-${port}-${Date.now()}`;
    const { inFlight, stopping, acksAtSignal } = await loadRound(request, ledger, tool, "term", async () => {
      const plan = slowPlan(server.url, { tool, args: inFlightArgs, idempotencyKey: inFlightKey });
      await sleep(300);
      const atSignal = ledger.acks;
      const stopped = server.stop("SIGTERM");
      await waitUntilRefusing(server.url);
      return { inFlight: plan, stopping: stopped, acksAtSignal: atSignal };
    });
    inFlight.finish();
    const answer = await inFlight.answer;
    expect(answer.status, `the request in flight at SIGTERM: ${answer.text.slice(0, 300)}`).toBe(201);
    const inFlightOp = JSON.parse(answer.text) as Operation;
    const terminated: StopResult = await stopping;
    expect(
      terminated.code,
      `a drained server exits 0 (exit ${terminated.code}, signal ${terminated.signal}); the end of its log:\n${server.logs().slice(-3000)}`,
    ).toBe(0);
    figures.push(
      `SIGTERM after ${acksAtSignal} acknowledged writes; ${ledger.acks - acksAtSignal} more acknowledged while ` +
        `draining (${ledger.unanswered} unanswered in total); the in-flight plan answered 201; exited ` +
        `(${terminated.code ?? terminated.signal}) ${terminated.ms} ms after the signal`,
    );
    begun = Date.now();
    server = await start();
    figures.push(`restart after SIGTERM: healthy in ${Date.now() - begun} ms`);
    await expectAcknowledgedWrites(request, ledger, tool);
    const planAgain = expectJson(
      await api(request).plan({ tool, args: inFlightArgs, idempotencyKey: inFlightKey }),
      200,
    );
    expect(planAgain.id).toBe(inFlightOp.id);

    // The server keeps working: the interrupted operations finish, and a new round runs without a single refusal.
    const resumed = await finishInterrupted(request, ledger);
    const before = ledger.acks;
    await loadRound(request, ledger, tool, "after", () => Promise.resolve());
    expect(ledger.acks - before).toBeGreaterThanOrEqual(WRITES_PER_ROUND);
    expect(ledger.refusals).toEqual([]);
    figures.push(
      `${resumed} interrupted operations finished after the restart; ${ledger.acknowledged.size} operations, ${ledger.acks} ` +
        "acknowledged writes in all",
    );
  } finally {
    for (const line of figures) test.info().annotations.push({ type: "figures", description: line });
    console.log(`[restart-under-load ${E2E_ENGINE}]\n  ${figures.join("\n  ")}`);
    await server.stop("SIGKILL");
    await request.dispose();
    await database.drop();
  }
});
