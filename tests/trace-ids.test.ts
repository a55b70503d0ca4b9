// The trace ids an operation and its attempts record (Operation.traceId, Attempt.traceId), with tracing unconfigured:
// the caller's W3C traceparent on the API request that planned it and on the one that dispatched each attempt, over
// HTTP through the agent plane on a real database (both engines: scripts/test-unit-pg.sh).
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Ledger } from "@/lib/ledger/ledger";
import { createApiKey } from "@/lib/platform/auth/api-keys";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { withContract } from "@/tests/helpers/ledger-fixtures";

vi.mock("@/lib/platform/server/startup", () => ({ ensureStarted: () => Promise.resolve() }));
const { startAgentPlane } = await import("@/tests/helpers/agent-plane");

const PLANNED = "4bf92f3577b34da6a3ce929d0e0e4736";
const SECOND = "0af7651916cd43dd8448eb211c80319c";
const parent = (traceId: string, spanId = "00f067aa0ba902b7") => `00-${traceId}-${spanId}-01`;

let t: TestDb;
let key: string;
beforeEach(async () => {
  t = await createTestDb();
  (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger = t.ledger;
  const system = { type: "system", id: "system", label: "test" } as const;
  key = (await createApiKey(t.ledger, { name: "agent", scopes: ["agent"] }, system, new Date())).key;
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
});
afterEach(async () => t.close());

const plane = await startAgentPlane();
afterAll(() => plane.close());

async function post(path: string, body: unknown, traceparent?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${plane.url}/api/v1/operations${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      ...(traceparent === undefined ? {} : { traceparent, tracestate: "vendor=opaque" }),
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

async function read(id: string): Promise<{ traceId: string | null; attempts: { traceId: string | null }[] }> {
  const response = await fetch(`${plane.url}/api/v1/operations/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return (await response.json()) as { traceId: string | null; attempts: { traceId: string | null }[] };
}

/** Plans (claimed), dispatches, fails retryably, and dispatches again: each request with its own traceparent. */
async function twoAttempts(plan?: string, first?: string, second?: string) {
  const body = {
    tool: "payments.charge",
    args: { amount: 1 },
    idempotencyKey: "k-1",
    claim: { workerId: "w", leaseMs: 60_000 },
  };
  const op = await post("", body, plan);
  const id = op.id as string;
  const fence = op.fence as number;
  await post(`/${id}/dispatch`, { fence }, first);
  await post(`/${id}/outcome`, { fence, result: "failed", error: { kind: "timeout", retryAfterMs: 0 } });
  await vi.waitFor(async () => expect((await post(`/${id}/dispatch`, { fence }, second)).attempt).toBe(2), {
    timeout: 10_000,
    interval: 200,
  });
  return { planned: op, stored: await read(id), row: await t.db.operation.findUniqueOrThrow({ where: { id } }) };
}

describe("trace ids from the caller's traceparent, with no tracing configured", () => {
  it("records the planning call's trace id on the operation and each dispatching call's on its attempt", async () => {
    const { planned, stored, row } = await twoAttempts(
      parent(PLANNED),
      parent(PLANNED, "b7ad6b7169203331"),
      parent(SECOND),
    );
    expect(planned.traceId).toBe(PLANNED);
    expect(stored.traceId).toBe(PLANNED);
    expect(row.traceId).toBe(PLANNED);
    expect(stored.attempts.map((a) => a.traceId)).toEqual([PLANNED, SECOND]);
    const attempts = await t.db.attempt.findMany({ where: { operationId: row.id }, orderBy: { number: "asc" } });
    expect(attempts.map((a) => a.traceId)).toEqual([PLANNED, SECOND]);
  });

  it("records nothing for a call without a traceparent, or with one the W3C rules refuse", async () => {
    const refused = [
      undefined,
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`, // all-zero trace id
      `00-${PLANNED}-${"0".repeat(16)}-01`, // all-zero parent id
      `ff-${PLANNED}-00f067aa0ba902b7-01`, // the forbidden version
      `00-${PLANNED.toUpperCase()}-00f067aa0ba902b7-01`, // upper case
      `00-${PLANNED}-00f067aa0ba902b7-01-extra`, // version 00 has exactly four fields
    ];
    const { stored } = await twoAttempts(refused[1], refused[2], refused[3]);
    expect(stored.traceId).toBeNull();
    expect(stored.attempts.map((a) => a.traceId)).toEqual([null, null]);
    for (const header of refused.slice(4)) {
      const op = await post(
        "",
        { tool: "payments.charge", args: { n: header }, idempotencyKey: String(header) },
        header,
      );
      expect(op.traceId).toBeNull();
    }
  });

  it("takes a later version's traceparent by its first four fields", async () => {
    const op = await post(
      "",
      { tool: "payments.charge", args: {}, idempotencyKey: "k-v1" },
      `01-${PLANNED}-00f067aa0ba902b7-01-x`,
    );
    expect(op.traceId).toBe(PLANNED);
  });
});
