// Bad input: thousands of random, truncated, oversized and wrongly typed bodies to every write route, hostile query
// strings to every GET route, hostile inputs to every server action; every answer is a refusal (a 4xx problem
// document, an ActionResult), never a 5xx, and the ledger is unchanged.
import fc from "fast-check";
import { expect, test } from "@playwright/test";
import { E2E_BASE_URL } from "../fixtures/test-env";
import {
  hostileActionInput,
  hostileBody,
  hostileQuery,
  MAX_BODY_BYTES,
  UNICODE_EDGES,
  type FuzzBody,
} from "./fuzz-bodies";
import { expectUnchanged, snapshotLedger } from "./ledger-snapshot";
import { MATRIX, rowId, type ActionRow, type RouteRow, type World } from "./matrix";
import { keyed, seedWorld, signedIn, worldSubjects } from "./principals";
import { callAction, exposedAction, exposedActions, type ActionAnswer } from "./server-actions";

const SEED = Number(process.env.OPLEDGER_FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.OPLEDGER_FUZZ_RUNS ?? 2000);
const CONCURRENCY = 6;

/**
 * JSON with object keys sorted: the ledger stores args canonically, so key order is not part of what must come back.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** Every POST, PUT, PATCH and DELETE handler under /api/v1 and /api/console, as the role matrix lists them. */
const TARGETS = MATRIX.filter(
  (r): r is RouteRow => r.kind === "route" && r.method !== "GET" && /^\/api\/(v1|console)\//.test(r.route),
);

interface Case {
  target: RouteRow;
  body: FuzzBody;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

async function send(world: World, key: string, { target, body }: Case): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body.contentType) headers["content-type"] = body.contentType;
  const payload = body.chunked
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < body.bytes.length; i += 16_384) controller.enqueue(body.bytes.subarray(i, i + 16_384));
          controller.close();
        },
      })
    : body.bytes;
  const response = await fetch(`${E2E_BASE_URL}${target.path(world)}`, {
    method: target.method,
    headers,
    body: payload,
    redirect: "manual",
    ...(body.chunked ? { duplex: "half" } : {}),
  } as RequestInit);
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text: await response.text(),
  };
}

/** Why an answer is wrong, or null: a 4xx problem document whose fields are all there and agree with the status. */
function problemFault(answer: Answer): string | null {
  if (answer.status < 400 || answer.status > 499) return `status ${answer.status}`;
  if (!answer.contentType.startsWith("application/problem+json"))
    return `content type ${answer.contentType || "(none)"}`;
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return "a problem content type with a body that is not JSON";
  }
  if (doc.status !== answer.status) return `problem status ${String(doc.status)} on an HTTP ${answer.status}`;
  for (const field of ["type", "title", "detail", "code"]) {
    if (typeof doc[field] !== "string" || doc[field].length === 0) return `problem without ${field}`;
  }
  if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(doc.code as string)) return `code ${String(doc.code)} is not snake_case`;
  if (/\n\s+at /.test(doc.detail as string)) return "a stack trace in the detail";
  return null;
}

function describeCase(c: Case, index: number): string {
  const text = c.body.bytes.toString("utf8");
  const excerpt = text.length > 240 ? `${text.slice(0, 240)}… (${c.body.bytes.length} bytes)` : text;
  return (
    `#${index} ${c.target.method} ${c.target.route} [${c.body.kind}, ` +
    `${c.body.contentType ?? "no content type"}${c.body.chunked ? ", chunked" : ""}]: ${JSON.stringify(excerpt)}`
  );
}

async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

test("every write route answers hostile bodies with a 4xx problem document and writes nothing", async ({
  request,
  playwright,
  browser,
}) => {
  test.setTimeout(180_000);
  console.log(
    `[security] fuzz seed ${SEED}, ${RUNS} requests (replay: OPLEDGER_FUZZ_SEED=${SEED} OPLEDGER_FUZZ_RUNS=${RUNS})`,
  );
  expect(TARGETS.length).toBeGreaterThan(0);
  const world = await seedWorld(request);
  // Every scope, so each request gets past authorization and reaches validation.
  const fuzzer = await keyed(playwright, "admin key", ["agent", "operator", "admin"]);
  const session = await signedIn(browser, "admin", "fuzz");
  try {
    const key = fuzzer.headers.authorization!.replace(/^Bearer /, "");
    const scope = { ...worldSubjects(world), actorIds: [...fuzzer.actorIds, ...session.actorIds] };
    const before = await snapshotLedger(request, session.request, scope);

    const cases = fc.sample(
      // Routes with a body to validate are where bugs live; a method a route refuses gets a share too.
      fc
        .oneof(...TARGETS.map((target) => ({ weight: target.valid ? 12 : 1, arbitrary: fc.constant(target) })))
        .chain((target) =>
          hostileBody(target.valid?.(world) as Record<string, unknown> | undefined).map((body): Case => ({
            target,
            body,
          })),
        ),
      { seed: SEED, numRuns: RUNS },
    );
    const started = Date.now();
    const faults: string[] = [];
    const statuses = new Map<number, number>();
    await inParallel(cases, CONCURRENCY, async (c, index) => {
      let answer: Answer;
      try {
        answer = await send(world, key, c);
      } catch (error) {
        faults.push(`${describeCase(c, index)}\n  -> the connection failed: ${String(error)}`);
        return;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const fault = problemFault(answer);
      if (fault) faults.push(`${describeCase(c, index)}\n  -> ${fault}: ${answer.text.slice(0, 300)}`);
    });
    const seconds = (Date.now() - started) / 1000;
    const kinds = new Map<string, number>();
    for (const c of cases) kinds.set(c.body.kind, (kinds.get(c.body.kind) ?? 0) + 1);
    console.log(
      `[security] fuzz: ${cases.length} requests to ${TARGETS.length} route methods in ${seconds.toFixed(1)} s; ` +
        `statuses ${JSON.stringify(Object.fromEntries(statuses))}; bodies ${JSON.stringify(Object.fromEntries(kinds))}`,
    );
    expect(faults.slice(0, 20), `${faults.length} bad answers (seed ${SEED})`).toEqual([]);
    expectUnchanged(before, await snapshotLedger(request, session.request, scope));
  } finally {
    await fuzzer.dispose();
    await session.dispose();
  }
});

test("bodies full of Unicode edge cases never get a 5xx, and what is accepted reads back the same", async ({
  request,
  playwright,
  browser,
}) => {
  test.setTimeout(120_000);
  const world = await seedWorld(request);
  const agent = await keyed(playwright, "admin key", ["agent", "operator", "admin"]);
  const operator = await signedIn(browser, "operator", "fuzz");
  try {
    const key = agent.headers.authorization!.replace(/^Bearer /, "");
    const forceBreaker = exposedAction("forceDependencyBreaker");
    const strings = fc.sample(
      fc.oneof(fc.constantFrom(...UNICODE_EDGES), fc.string({ unit: "binary", minLength: 1, maxLength: 30 })),
      {
        seed: SEED,
        numRuns: 120,
      },
    );
    const faults: string[] = [];
    const check = async (method: "POST" | "PUT", path: string, body: unknown): Promise<Answer> => {
      const response = await fetch(`${E2E_BASE_URL}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = {
        status: response.status,
        contentType: response.headers.get("content-type") ?? "",
        text: await response.text(),
      };
      const where = `${method} ${path} ${JSON.stringify(body).slice(0, 200)}`;
      if (answer.status >= 500) faults.push(`${where}\n  -> ${answer.status}: ${answer.text.slice(0, 300)}`);
      else if (answer.status >= 400 && problemFault(answer)) faults.push(`${where}\n  -> ${problemFault(answer)}`);
      return answer;
    };
    for (const [i, s] of strings.entries()) {
      const args = { note: s, [s]: [s] };
      const planned = await check("POST", "/api/v1/operations", {
        tool: world.tool,
        args,
        idempotencyKey: `${s}-${i}`,
        runId: `${s}-run`,
        agentId: s,
      });
      if (planned.status === 201) {
        const op = JSON.parse(planned.text) as { id: string; args: unknown };
        const read = await fetch(`${E2E_BASE_URL}/api/v1/operations/${op.id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const stored = ((await read.json()) as { args: unknown }).args;
        if (canonical(stored) !== canonical(args)) {
          faults.push(`args ${JSON.stringify(args)} came back as ${JSON.stringify(stored)}`);
        }
      }
      await check("PUT", `/api/v1/contracts/${encodeURIComponent(world.tool)}`, {
        effect: "IDEMPOTENT",
        idempotencyKey: "optional",
        reconcile: null,
        approval: "not_required",
        maxAttempts: 3,
        backoff: { baseMs: 10, maxMs: 20 },
        dependency: world.dependency,
        description: s,
      });
      await check("POST", `/api/v1/operations/${world.unknown.id}/reconcile`, {
        outcome: "not_applied",
        evidence: { note: s },
        reason: s,
      });
      await check("POST", `/api/v1/operations/${world.dispatched.id}/outcome`, {
        fence: world.dispatched.fence,
        result: "failed",
        error: { kind: s, message: s, httpStatus: 503 },
      });
      await check("POST", `/api/v1/operations/${world.awaiting.id}/reject`, { actor: s, reason: s });
      await check("POST", `/api/v1/operations/${world.planned.id}/claim`, { workerId: s, leaseMs: 1_000 });
    }
    // The console's actions take the same strings from a form (or from anyone posting to the action directly).
    for (const s of UNICODE_EDGES) {
      const answer = await callAction(operator.request, forceBreaker, [
        { name: world.dependency, state: "auto", reason: `${s} reason` },
      ]);
      const result = answer.result as { ok?: boolean; code?: string } | undefined;
      if (answer.status !== 200 || (result?.ok !== true && result?.code !== "invalid_input")) {
        faults.push(
          `forceDependencyBreaker with reason ${JSON.stringify(s)}\n  -> ${answer.status}: ${answer.text.slice(0, 300)}`,
        );
      }
    }
    expect(faults.slice(0, 20), `${faults.length} bad answers (seed ${SEED})`).toEqual([]);
  } finally {
    await agent.dispose();
    await operator.dispose();
  }
});

/** Every GET handler under /api/v1, /api/console and /api/health, as the role matrix lists them. */
const READS = MATRIX.filter(
  (r): r is RouteRow => r.kind === "route" && r.method === "GET" && /^\/api\/(v1|console|health)(\/|$)/.test(r.route),
);

/**
 * Why a read's answer is wrong, or null: a 2xx, or a 4xx problem document; never a 5xx. Node's HTTP parser answers a
 * request head over its 16 KiB limit with a bare 431 before any of our code (or Next's) runs: no content, no leak.
 */
function readFault(answer: Answer): string | null {
  if (answer.status >= 200 && answer.status < 300) return null;
  if (answer.status === 431 && answer.text === "") return null;
  return problemFault(answer);
}

test("every GET route answers hostile query strings with a 2xx or a 4xx problem document, never a 5xx", async ({
  request,
  playwright,
  browser,
}) => {
  test.setTimeout(180_000);
  const runs = Math.max(200, Math.round(RUNS / 2));
  console.log(`[security] query fuzz seed ${SEED}, ${runs} requests`);
  expect(READS.length).toBeGreaterThan(0);
  const world = await seedWorld(request);
  // The bootstrap key reads every operation; the console routes get an admin's session cookie.
  const reader = await keyed(playwright, "admin key", ["agent", "operator", "admin", "metrics"]);
  const session = await signedIn(browser, "admin", "fuzz");
  try {
    const scope = { ...worldSubjects(world), actorIds: [...reader.actorIds, ...session.actorIds] };
    const before = await snapshotLedger(request, session.request, scope);
    const cookies = (await session.request.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const cases = fc.sample(fc.record({ target: fc.constantFrom(...READS), query: hostileQuery() }), {
      seed: SEED,
      numRuns: runs,
    });
    const faults: string[] = [];
    const statuses = new Map<number, number>();
    await inParallel(cases, CONCURRENCY, async ({ target, query }, index) => {
      const base = target.path(world).split("?")[0]!;
      const url = `${E2E_BASE_URL}${base}?${query}`;
      const headers: Record<string, string> = target.route.startsWith("/api/console/")
        ? { cookie: cookies }
        : { authorization: reader.headers.authorization! };
      let answer: Answer;
      try {
        const response = await fetch(url, { headers, redirect: "manual" });
        answer = {
          status: response.status,
          contentType: response.headers.get("content-type") ?? "",
          text: await response.text(),
        };
      } catch (error) {
        faults.push(`#${index} GET ${base}?${query.slice(0, 200)}\n  -> the request failed: ${String(error)}`);
        return;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const fault = readFault(answer);
      if (fault)
        faults.push(`#${index} GET ${base}?${query.slice(0, 200)}\n  -> ${fault}: ${answer.text.slice(0, 300)}`);
    });
    const statusCounts = JSON.stringify(Object.fromEntries(statuses));
    console.log(
      `[security] query fuzz: ${cases.length} requests to ${READS.length} GET routes; statuses ${statusCounts}`,
    );
    expect(faults.slice(0, 20), `${faults.length} bad answers (seed ${SEED})`).toEqual([]);
    expectUnchanged(before, await snapshotLedger(request, session.request, scope));
  } finally {
    await reader.dispose();
    await session.dispose();
  }
});

/** An action call's HTTP answer, for problemFault. */
function answerOf(answer: ActionAnswer): Answer {
  return { status: answer.status, contentType: answer.response.headers()["content-type"] ?? "", text: answer.text };
}

/** A string field every action's input has, made empty: no single mutation elsewhere can make the input valid. */
const ANCHORS = ["reason", "id", "userId", "keyId", "email", "name", "tool"];

function invalidBase(valid: Record<string, unknown>): Record<string, unknown> {
  const anchor = ANCHORS.find((k) => typeof valid[k] === "string");
  if (!anchor) throw new Error(`no anchor field in ${JSON.stringify(valid)}: add one to ANCHORS`);
  return { ...valid, [anchor]: "" };
}

test("every server action answers hostile inputs with an ActionResult refusal, never a 5xx or internal_error, and runs nothing", async ({
  request,
  browser,
}) => {
  test.setTimeout(240_000);
  const runs = Math.max(150, Math.round(RUNS / 8));
  console.log(`[security] action fuzz seed ${SEED}, ${runs} calls`);
  const world = await seedWorld(request);
  const admin = await signedIn(browser, "admin", "fuzz");
  try {
    const exposed = exposedActions();
    // The actions the build exposes, with the role matrix's valid input (the matrix lists every one of them).
    const targets = MATRIX.filter((r): r is ActionRow => r.kind === "action" && exposed.has(rowId(r)));
    expect(targets.map(rowId).sort()).toEqual([...exposed.keys()].sort());
    const scope = { ...worldSubjects(world), actorIds: admin.actorIds };
    const before = await snapshotLedger(request, admin.request, scope);
    const cases = fc.sample(
      fc
        .constantFrom(...targets)
        .chain((row) =>
          hostileActionInput(invalidBase(row.valid(world) as Record<string, unknown>)).map((input) => ({ row, input })),
        ),
      { seed: SEED, numRuns: runs },
    );
    const faults: string[] = [];
    const codes = new Map<string, number>();
    await inParallel(cases, 3, async ({ row, input }, index) => {
      const where = `#${index} ${rowId(row)} [${input.kind}] ${input.json.slice(0, 200)}`;
      let value: unknown;
      try {
        value = JSON.parse(input.json);
      } catch {
        value = input.json;
      }
      const answer = await callAction(admin.request, exposed.get(rowId(row))!, [value]);
      const result = answer.result as { ok?: boolean; code?: string } | undefined;
      // proxy.ts refuses arguments nested past what it will even decode with a 400 problem, before Next.js runs.
      const refusedAtTheDoor =
        answer.status === 400 && problemFault(answerOf(answer)) === null && /"code":"invalid_input"/.test(answer.text);
      const code = refusedAtTheDoor
        ? "400 invalid_input (proxy)"
        : result?.ok === false
          ? String(result.code)
          : `HTTP ${answer.status}`;
      codes.set(code, (codes.get(code) ?? 0) + 1);
      if (refusedAtTheDoor) return;
      if (answer.status !== 200 || result === undefined)
        faults.push(`${where}\n  -> HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
      else if (result.ok !== false) faults.push(`${where}\n  -> the action ran: ${answer.text.slice(0, 300)}`);
      else if (result.code === "internal_error") faults.push(`${where}\n  -> internal_error`);
    });
    console.log(
      `[security] action fuzz: ${cases.length} calls to ${targets.length} actions; results ${JSON.stringify(Object.fromEntries(codes))}`,
    );
    expect(faults.slice(0, 20), `${faults.length} bad answers (seed ${SEED})`).toEqual([]);
    expectUnchanged(before, await snapshotLedger(request, admin.request, scope));
  } finally {
    await admin.dispose();
  }
});

test("a 256 KiB tower of nested arrays or objects inside args or evidence is a 400 problem, never a 500", async ({
  request,
  playwright,
  browser,
}) => {
  const world = await seedWorld(request);
  const agent = await keyed(playwright, "admin key", ["agent", "operator", "admin"]);
  const session = await signedIn(browser, "admin", "fuzz");
  try {
    const scope = { ...worldSubjects(world), actorIds: agent.actorIds };
    const before = await snapshotLedger(request, session.request, scope);
    const tower = (open: string, close: string, room: number) => {
      const levels = Math.floor(room / (open.length + close.length));
      return `${open.repeat(levels)}${open === "[" ? "" : "1"}${close.repeat(levels)}`;
    };
    const cases: [string, string, (inner: string) => string][] = [
      [
        "POST",
        "/api/v1/operations",
        (inner) => `{"tool":${JSON.stringify(world.tool)},"idempotencyKey":"deep","args":${inner}}`,
      ],
      [
        "POST",
        `/api/v1/operations/${world.unknown.id}/reconcile`,
        (inner) => `{"outcome":"not_applied","evidence":${inner}}`,
      ],
    ];
    for (const [method, path, wrap] of cases) {
      for (const [open, close] of [
        ["[", "]"],
        ['{"a":', "}"],
      ] as const) {
        const frame = wrap("");
        const body = wrap(tower(open, close, MAX_BODY_BYTES - Buffer.byteLength(frame) - 16));
        expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
        expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_BODY_BYTES - 64);
        const response = await fetch(`${E2E_BASE_URL}${path}`, {
          method,
          headers: { authorization: agent.headers.authorization!, "content-type": "application/json" },
          body,
        });
        const answer = {
          status: response.status,
          contentType: response.headers.get("content-type") ?? "",
          text: await response.text(),
        };
        const where = `${method} ${path} with ${open}…${close} nested ${Buffer.byteLength(body)} bytes`;
        expect(problemFault(answer), `${where}: ${answer.text.slice(0, 300)}`).toBeNull();
        // The depth limit (64, docs/api.md#conventions) refuses it as a bad body.
        expect(answer.status, where).toBe(400);
      }
    }
    expectUnchanged(before, await snapshotLedger(request, session.request, scope));
  } finally {
    await agent.dispose();
    await session.dispose();
  }
});
