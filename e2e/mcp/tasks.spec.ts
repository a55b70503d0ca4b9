// MCP tasks (2025-11-25) through the gateway with the official SDK's client over Streamable HTTP: a call that waits for
// a person becomes a task, a person decides through the HTTP API with their own key, and the task ends with the
// upstream's result (its effect counted once) or the refusal. Other keys find no such task.
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect, test } from "@playwright/test";
import { extraPort } from "../fixtures/server-process";
import { codeOf, GatewayWorld, textOf } from "./support/gateway-world";

let world: GatewayWorld;
/** The agent whose calls become tasks, another agent, and a person (an operator key acting as the e2e admin). */
let agentKey: string;
let otherKey: string;
let personKey: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  world = await GatewayWorld.start(extraPort(9));
  await world.contract("test__charge", {
    effect: "NON_RETRYABLE",
    approval: "required",
    keyFrom: "charge:{customer}",
  });
  [agentKey, otherKey, personKey] = await Promise.all([world.key("agent"), world.key("agent"), world.key("operator")]);
});

test.afterAll(async () => {
  test.setTimeout(90_000);
  await world?.stop();
});

const effectsOf = (customer: string) => world.effects().filter((e) => e.args.customer === customer);

/** The charge as a task, the way a task-capable client makes it: the SDK polls tasks/get, then asks tasks/result. */
async function chargeAsTask(client: Client, customer: string, decide: (taskId: string) => Promise<void>) {
  const stream = client.experimental.tasks.callToolStream(
    { name: "test__charge", arguments: { customer, amount: 7 } },
    CallToolResultSchema,
    { task: { ttl: 600_000 } },
  );
  const statuses: string[] = [];
  let result: CallToolResult | null = null;
  let failure: Error | null = null;
  for await (const message of stream) {
    switch (message.type) {
      case "taskCreated":
        statuses.push(`created ${message.task.status}`);
        await decide(message.task.taskId);
        break;
      case "taskStatus":
        statuses.push(message.task.status);
        break;
      case "result":
        result = message.result;
        break;
      case "error":
        failure = message.error;
        break;
    }
  }
  return { statuses, result, failure };
}

test("a call that waits for a person is a task; approved in the ledger, it runs once and tasks/result answers", async () => {
  test.setTimeout(90_000);
  const client = await world.client(agentKey);
  let taskId = "";
  const { statuses, result, failure } = await chargeAsTask(client, "task-1", async (id) => {
    taskId = id;
    // Nothing has been sent while it waits, and the task says so.
    const waiting = await client.experimental.tasks.getTask(id);
    expect(waiting.status).toBe("working");
    expect(waiting.statusMessage).toMatch(/waits for a person's approval/);
    expect((await world.operation(id)).phase).toBe("AWAITING_APPROVAL");
    expect(effectsOf("task-1")).toHaveLength(0);
    await world.decide(id, "approve", personKey, "checked the customer");
  });
  expect(failure).toBeNull();
  expect(statuses[0]).toBe("created working");
  expect(statuses.slice(1, -1).every((s) => s === "working")).toBe(true);
  expect(statuses.at(-1)).toBe("completed");
  expect(result?.isError).toBeFalsy();
  expect(textOf(result as CallToolResult)).toMatch(/charged task-1/);
  expect(effectsOf("task-1")).toHaveLength(1);
  expect((await world.operation(taskId)).phase).toBe("CONFIRMED");

  // Asked again, the task answers from the ledger: the upstream is not called a second time.
  const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  expect(again.content).toEqual(result?.content);
  expect(effectsOf("task-1")).toHaveLength(1);
  await client.close();
});

test("rejected by a person, the task fails and tasks/result gives the refusal with the person's reason", async () => {
  test.setTimeout(90_000);
  const client = await world.client(agentKey);
  let taskId = "";
  const { statuses, failure } = await chargeAsTask(client, "task-2", async (id) => {
    taskId = id;
    await world.decide(id, "reject", personKey, "not this customer");
  });
  expect(statuses).toEqual(["created working", "failed"]);
  expect(taskId).not.toBe("");
  expect(failure?.message).toMatch(/failed/);
  const refusal = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  expect(refusal.isError).toBe(true);
  expect(codeOf(refusal)).toBe("rejected");
  expect(textOf(refusal)).toMatch(/A person rejected this call.*not this customer/s);
  expect(effectsOf("task-2")).toHaveLength(0);
  await client.close();
});

test("another agent key finds no such task: it cannot read, await or cancel it", async () => {
  const owner = await world.client(agentKey);
  const created = await owner.request(
    {
      method: "tools/call",
      params: { name: "test__charge", arguments: { customer: "task-3", amount: 1 }, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
  );
  const taskId = created.task.taskId;
  const other = await world.client(otherKey);
  const noSuchTask = { code: -32602, message: expect.stringMatching(/There is no task/) as unknown };
  await expect(other.experimental.tasks.getTask(taskId)).rejects.toMatchObject(noSuchTask);
  await expect(other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toMatchObject(noSuchTask);
  await expect(other.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject(noSuchTask);
  expect((await world.operation(taskId)).phase).toBe("AWAITING_APPROVAL");
  // Its own agent may withdraw it: cancelled, and nothing approved or sent.
  expect((await owner.experimental.tasks.cancelTask(taskId)).status).toBe("cancelled");
  expect((await world.operation(taskId)).phase).toBe("REJECTED");
  expect(effectsOf("task-3")).toHaveLength(0);
  await Promise.all([owner.close(), other.close()]);
});

test("a client without task support still gets approval_required at once", async () => {
  const client = await world.client(agentKey);
  const held = (await client.callTool({
    name: "test__charge",
    arguments: { customer: "task-4", amount: 1 },
  })) as CallToolResult;
  expect(held.isError).toBe(true);
  expect(codeOf(held)).toBe("approval_required");
  expect(effectsOf("task-4")).toHaveLength(0);
  await client.close();
});
