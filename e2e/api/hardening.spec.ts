// Agent API v1 hardening (docs/api.md#conventions): malformed, oversize and mistyped bodies, unknown paths, scopes and
// revoked keys. Every error is an RFC 9457 problem document, never HTML, and a refused request writes nothing.
import http from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { E2E_BASE_URL, expect, test } from "../fixtures";
import {
  api,
  contractBody,
  createFreshKey,
  createKey,
  errorFields,
  expectJson,
  expectProblem,
  opledgerCli,
  parseCreatedKey,
  plannedOperation,
  putContract,
  revokeKey,
  uniqueId,
  uniqueTool,
  type Api,
  type ApiResult,
} from "../fixtures/api";

const KIB = 1024;

/** How many operations a tool has, read through the API. */
async function countOps(client: Api, tool: string): Promise<number> {
  const list = expectJson(await client.list({ tool, limit: 200 }), 200);
  return list.items.length;
}

/** What must not change when a command on an operation is refused: its row and its trail. */
async function snapshot(client: Api, id: string): Promise<Record<string, unknown>> {
  const d = expectJson(await client.getOp(id), 200);
  return {
    phase: d.phase,
    attempt: d.attempt,
    fence: d.fence,
    leaseOwner: d.leaseOwner,
    leaseExpiresAt: d.leaseExpiresAt,
    approvedAttempt: d.approvedAttempt,
    updatedAt: d.updatedAt,
    attempts: d.attempts.length,
    audit: d.audit.length,
  };
}

function expectNotHtml(result: ApiResult): void {
  expect(result.contentType).not.toMatch(/html/i);
  expect(result.text.trimStart().startsWith("<")).toBe(false);
}

/** A POST whose body is sent in chunks without a Content-Length, so only the streaming limit can catch it. */
function postChunked(
  path: string,
  key: string,
  chunks: string[],
): Promise<{ status: number; contentType: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, E2E_BASE_URL),
      {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "transfer-encoding": "chunked" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          let body: unknown;
          try {
            body = JSON.parse(text) as unknown;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body });
        });
      },
    );
    // The server may answer 413 and close before the whole body is written.
    req.on("error", reject);
    (async () => {
      for (const chunk of chunks) {
        if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
      }
      req.end();
    })().catch(reject);
  });
}

/** A GET with exactly this Accept-Encoding (or none), its raw body undecoded. */
function getRaw(path: string, acceptEncoding?: string): Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding };
    http
      .get(new URL(path, E2E_BASE_URL), { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

test.describe("bodies", () => {
  test("malformed JSON is a 400 malformed_json problem, and nothing is written", async ({ request }) => {
    const client = api(request);
    const { tool, op } = await plannedOperation(request);
    const before = await snapshot(client, op.id);

    const bodies = [
      `{"tool": "${tool}", "args": {`,
      `{tool: "${tool}"}`,
      "not json at all",
      `{"tool":"${tool}","args":{}}}`,
    ];
    for (const data of bodies) {
      expectProblem(await client.send("POST", "/api/v1/operations", { data }), 400, "malformed_json");
    }
    const opPath = `/api/v1/operations/${op.id}`;
    for (const action of ["claim", "heartbeat", "dispatch", "outcome", "reconcile", "approve", "reject"]) {
      expectProblem(await client.send("POST", `${opPath}/${action}`, { data: '{"fence": 1,' }), 400, "malformed_json");
    }
    const newTool = uniqueTool("malformed");
    expectProblem(
      await client.send("PUT", `/api/v1/contracts/${newTool}`, { data: '{"effect": "PURE"' }),
      400,
      "malformed_json",
    );

    expect(await countOps(client, tool)).toBe(1);
    expect(await snapshot(client, op.id)).toEqual(before);
    expectProblem(await client.getContract(newTool), 404, "not_found");
  });

  test("a body over 256 KiB is a 413 problem, with or without a Content-Length, and nothing is written", async ({
    request,
  }) => {
    const client = api(request);
    const tool = uniqueTool("big");
    await putContract(request, tool);

    const big = { tool, idempotencyKey: uniqueId("key"), args: { blob: "x".repeat(300 * KIB) } };
    expectProblem(await client.plan(big), 413, "payload_too_large");

    const json = JSON.stringify({ tool, idempotencyKey: uniqueId("key"), args: { blob: "y".repeat(400 * KIB) } });
    const chunks: string[] = [];
    for (let i = 0; i < json.length; i += 16 * KIB) chunks.push(json.slice(i, i + 16 * KIB));
    const chunked = await postChunked("/api/v1/operations", client.key!, chunks);
    expect(chunked.status).toBe(413);
    expect(chunked.contentType).toMatch(/^application\/problem\+json/);
    expect(chunked.body).toEqual(expect.objectContaining({ status: 413, code: "payload_too_large" }));

    const bigContract = { ...contractBody(), description: "d".repeat(300 * KIB) };
    expectProblem(await client.putContract(tool, bigContract), 413, "payload_too_large");

    expect(await countOps(client, tool)).toBe(0);
    expect(expectJson(await client.getContract(tool), 200).version).toBe(1);

    // Just under the limit is a normal request.
    const fits = expectJson(
      await client.plan({ tool, idempotencyKey: uniqueId("key"), args: { blob: "z".repeat(250 * KIB) } }),
      201,
    );
    expect((fits.args as { blob: string }).blob).toHaveLength(250 * KIB);
    expect(await countOps(client, tool)).toBe(1);
  });

  test("fields of the wrong type are a 400 invalid_body naming each field, and nothing is written", async ({
    request,
  }) => {
    const client = api(request);
    const { tool, op } = await plannedOperation(request);
    const before = await snapshot(client, op.id);
    const fields = (result: ApiResult) => errorFields(expectProblem(result, 400, "invalid_body"));

    expect(
      fields(
        await client.send("POST", "/api/v1/operations", {
          data: { tool: 42, args: {}, idempotencyKey: 7, runId: ["r"] },
        }),
      ),
    ).toEqual(["idempotencyKey", "runId", "tool"]);
    expect(
      fields(await client.send("POST", "/api/v1/operations", { data: { tool, args: {}, idempotencyKey: "" } })),
    ).toEqual(["idempotencyKey"]);
    expect(fields(await client.send("POST", "/api/v1/operations", { data: [tool] }))).toEqual([""]);

    const opPath = `/api/v1/operations/${op.id}`;
    expect(fields(await client.send("POST", `${opPath}/claim`, { data: { workerId: 5, leaseMs: "long" } }))).toEqual([
      "leaseMs",
      "workerId",
    ]);
    expect(fields(await client.send("POST", `${opPath}/claim`, { data: { workerId: "w", leaseMs: 99 } }))).toEqual([
      "leaseMs",
    ]);
    expect(
      fields(await client.send("POST", `${opPath}/claim`, { data: { workerId: "w", leaseMs: 3_600_001 } })),
    ).toEqual(["leaseMs"]);
    expect(fields(await client.send("POST", `${opPath}/claim`, { data: { workerId: "w", leaseMs: 1000.5 } }))).toEqual([
      "leaseMs",
    ]);
    expect(fields(await client.send("POST", `${opPath}/heartbeat`, { data: { fence: -1, leaseMs: 1000 } }))).toEqual([
      "fence",
    ]);
    expect(fields(await client.send("POST", `${opPath}/dispatch`, { data: { fence: "1" } }))).toEqual(["fence"]);
    expect(
      fields(
        await client.send("POST", `${opPath}/outcome`, {
          data: { fence: 1, result: "maybe", error: { httpStatus: "503" } },
        }),
      ),
    ).toEqual(["error.httpStatus", "result"]);
    expect(
      fields(await client.send("POST", `${opPath}/reconcile`, { data: { outcome: "perhaps", evidence: {} } })),
    ).toEqual(["outcome"]);
    // `actor` is accepted for older clients and ignored for the decision (docs/authority.md#principals), but it is
    // still a string.
    expect(fields(await client.send("POST", `${opPath}/approve`, { data: { actor: 5, reason: 5 } }))).toEqual([
      "actor",
      "reason",
    ]);
    expect(fields(await client.send("POST", `${opPath}/reject`, { data: { actor: "someone" } }))).toEqual(["reason"]);

    expect(await countOps(client, tool)).toBe(1);
    expect(await snapshot(client, op.id)).toEqual(before);
  });
});

test.describe("paths", () => {
  test("an unknown /api/v1 path is a 404 problem, never an HTML page, for every method, with or without a key", async ({
    request,
  }) => {
    for (const client of [api(request), api(request, null)]) {
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        for (const path of ["/api/v1/nope", "/api/v1/operations/x/nope", "/api/v1/contracts/x/y/z"]) {
          const result = await client.send(method, path, method === "GET" || method === "DELETE" ? {} : { data: {} });
          expectNotHtml(result);
          const problem = expectProblem(result, 404, "not_found");
          expect(problem.detail).toContain(path);
        }
      }
    }
  });

  test("the agent plane answers /api/v1, /mcp and the probes itself: no request there reaches Next.js's handler", async ({
    request,
  }) => {
    // Next.js's handler puts its router's Vary (rsc, next-router-state-tree, ...) on every answer it gives, a console
    // route's problem included; the agent plane (lib/agent-plane, decision 026) never writes it.
    const nextMark = (vary: string | undefined) => (vary ?? "").toLowerCase().includes("next-router-state-tree");
    const consoleAnswer = await request.get(`${E2E_BASE_URL}/api/console/counts`);
    expect(consoleAnswer.status()).toBe(401);
    expect(nextMark(consoleAnswer.headers()["vary"]), "a console route is Next.js's").toBe(true);
    const key = { authorization: `Bearer ${(await createKey(["agent", "operator"])).key}` };
    const plane = [
      request.get(`${E2E_BASE_URL}/api/v1/operations?limit=1`, { headers: key }),
      request.post(`${E2E_BASE_URL}/api/v1/operations`, { headers: key, data: {} }),
      request.get(`${E2E_BASE_URL}/api/v1/operations`),
      request.get(`${E2E_BASE_URL}/api/v1/openapi.json`),
      request.get(`${E2E_BASE_URL}/api/v1/nope`),
      request.fetch(`${E2E_BASE_URL}/api/v1/contracts`, { method: "OPTIONS" }),
      request.post(`${E2E_BASE_URL}/mcp`, { data: {} }),
      request.get(`${E2E_BASE_URL}/api/health`),
      request.get(`${E2E_BASE_URL}/api/health/live`),
    ];
    for (const answer of await Promise.all(plane)) {
      expect(nextMark(answer.headers()["vary"]), `${answer.url()} went through Next.js`).toBe(false);
      expect(answer.headers()["x-content-type-options"], `${answer.url()} has the security headers`).toBe("nosniff");
    }
  });

  test("a large answer is compressed when the client accepts it (br or gzip), a small one never", async () => {
    const plain = await getRaw("/api/v1/openapi.json");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers["vary"]).toBe("accept-encoding");
    const gzip = await getRaw("/api/v1/openapi.json", "gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.bytes).equals(plain.bytes)).toBe(true);
    const br = await getRaw("/api/v1/openapi.json", "gzip, deflate, br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 4);
    const small = await getRaw("/api/health/live", "gzip, br");
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(small.bytes.toString())).toEqual({ status: "ok" });
  });

  test("GET /api/v1 itself is a 404 problem, not an HTML page", async ({ request }) => {
    const result = await api(request).get("/api/v1");
    expectNotHtml(result);
    expectProblem(result, 404, "not_found");
  });

  test("a method an endpoint does not have is a 405 problem document", async ({ request }) => {
    const client = api(request);
    for (const [method, path] of [
      ["DELETE", "/api/v1/operations"],
      ["GET", "/api/v1/operations/01ZZZZZZZZZZZZZZZZZZZZZZZZ/claim"],
      ["PUT", "/api/v1/contracts"],
      ["POST", "/api/v1/metrics"],
    ] as const) {
      const result = await client.send(method, path);
      expectProblem(result, 405);
    }
  });

  // proxy.ts answers these before Next.js routing, which would otherwise fail with a bare 500 text/plain.
  test("a malformed percent-escape in the path is a 4xx problem, not a 500", async ({ request }) => {
    const client = api(request);
    for (const path of ["/api/v1/operations/%ZZ", "/api/v1/contracts/%E0%A4%A", "/api/v1/nope/%ZZ"]) {
      const result = await client.get(path);
      expect([400, 404], `${path}: ${result.status} ${result.contentType} ${result.text.slice(0, 100)}`).toContain(
        result.status,
      );
      expectProblem(result, result.status);
    }
  });

  test("a percent sign in a tool name is a 400 invalid_body, not a 500", async ({ request }) => {
    const client = api(request);
    expectProblem(await client.get("/api/v1/contracts/%25"), 400, "invalid_body");
    expectProblem(await client.send("PUT", "/api/v1/contracts/%25", { data: contractBody() }), 400, "invalid_body");
  });

  test("every error answer is a problem document whose status matches the HTTP status", async ({ request }) => {
    const client = api(request);
    const { key: agentKey } = await createKey(["agent"]);
    const { tool, op } = await plannedOperation(request);
    expectJson(await client.claim(op.id, { workerId: "holder", leaseMs: 60_000 }), 200);
    const keyTool = uniqueTool("keyreq");
    await putContract(request, keyTool, { idempotencyKey: "required" });
    const cases: [string, () => Promise<ApiResult>, number, string][] = [
      ["401 no key", () => api(request, null).list(), 401, "unauthorized"],
      [
        "401 bad key",
        () => api(request, "opl_nope_nope_nope_nope_nope_nope_nope").plan({ tool, args: {} }),
        401,
        "unauthorized",
      ],
      ["403 scope", () => api(request, agentKey).putContract(tool, contractBody()), 403, "forbidden"],
      ["404 op", () => client.getOp("01ZZZZZZZZZZZZZZZZZZZZZZZZ"), 404, "not_found"],
      ["404 contract", () => client.getContract(uniqueTool("none")), 404, "not_found"],
      ["404 path", () => client.get("/api/v1/nowhere"), 404, "not_found"],
      ["400 json", () => client.send("POST", "/api/v1/operations", { data: "{" }), 400, "malformed_json"],
      ["400 body", () => client.claim(op.id, { workerId: "", leaseMs: 1 }), 400, "invalid_body"],
      ["400 query", () => client.list({ limit: 500 }), 400, "invalid_body"],
      ["400 key required", () => client.plan({ tool: keyTool, args: {} }), 400, "idempotency_key_required"],
      ["409 fence", () => client.dispatch(op.id, { fence: 99 }), 409, "stale_fence"],
      ["409 lease", () => client.claim(op.id, { workerId: "other", leaseMs: 1000 }), 409, "lease_held"],
      [
        "413 size",
        () => client.send("POST", "/api/v1/operations", { data: "[" + "1,".repeat(140 * KIB) + "1]" }),
        413,
        "payload_too_large",
      ],
      ["422 contract", () => client.plan({ tool: uniqueTool("none"), args: {} }), 422, "no_contract"],
    ];
    for (const [name, call, status, code] of cases) {
      await test.step(name, async () => {
        const result = await call();
        expectNotHtml(result);
        const problem = expectProblem(result, status, code);
        expect(result.headers["cache-control"]).toContain("no-store");
        expect(Object.keys(problem)).toEqual(expect.arrayContaining(["type", "title", "status", "detail", "code"]));
      });
    }
  });
});

test.describe("keys and scopes", () => {
  test("a revoked key is 401 at once, and its requests write nothing", async ({ request }) => {
    const tool = uniqueTool("revoked");
    await putContract(request, tool);
    const created = await createFreshKey(["agent"]);
    const client = api(request, created.key);
    expectJson(await client.plan({ tool, args: { n: 1 } }), 201);

    await revokeKey(created.id);

    const refused = await client.plan({ tool, args: { n: 2 } });
    expectProblem(refused, 401, "unauthorized");
    expect(refused.headers["www-authenticate"]).toMatch(/^Bearer/);
    expectProblem(await client.list({ tool }), 401, "unauthorized");
    expect(await countOps(api(request), tool)).toBe(1);
  });

  test(
    "an agent key cannot approve (person_required), act on another key's operation (404) or write contracts " +
      "(403): nothing written",
    async ({ request }) => {
      const admin = api(request);
      const { key } = await createKey(["agent"]);
      const agent = api(request, key);
      const tool = uniqueTool("agent-own");
      await putContract(request, tool, { approval: "required" });
      // Its own operation: it planned it, so it drives it, but approving is a person's decision.
      const own = expectJson(await agent.plan({ tool, args: { n: 1 }, idempotencyKey: uniqueId("key") }), 201);
      expect(own.phase).toBe("AWAITING_APPROVAL");
      // Another key's operation (the bootstrap key planned it): as if it did not exist.
      const { op: theirs } = await plannedOperation(request, { approval: "required" });
      const before = { own: await snapshot(admin, own.id), theirs: await snapshot(admin, theirs.id) };

      const approve = expectProblem(
        await agent.approve(own.id, { actor: "mallory", reason: "let me through" }),
        403,
        "person_required",
      );
      expect(approve.detail).toContain("person");
      expectProblem(
        await agent.reconcile(own.id, { outcome: "not_applied", evidence: {}, approveRetry: true }),
        403,
        "person_required",
      );
      expectProblem(await agent.reject(theirs.id, { actor: "mallory", reason: "no" }), 404, "not_found");
      expectProblem(await agent.getOp(theirs.id), 404, "not_found");
      expectProblem(await agent.claim(theirs.id, { workerId: "agent-worker", leaseMs: 1000 }), 404, "not_found");
      expectProblem(await agent.putContract(tool, contractBody({ approval: "not_required" })), 403, "forbidden");

      expect({ own: await snapshot(admin, own.id), theirs: await snapshot(admin, theirs.id) }).toEqual(before);
      expect(expectJson(await admin.getContract(tool), 200)).toEqual(
        expect.objectContaining({ version: 1, approval: "required" }),
      );
      // What the agent scope is for still works, on its own operation.
      expectJson(await agent.claim(own.id, { workerId: "agent-worker", leaseMs: 1000 }), 200);
      // And it may give its own operation up.
      expect(expectJson(await agent.reject(own.id, { reason: "not needed any more" }), 200).phase).toBe("REJECTED");
    },
  );

  test("an operator-only key cannot plan or run operations: 403, nothing written", async ({ request }) => {
    const admin = api(request);
    const { key } = await createKey(["operator"]);
    const operator = api(request, key);
    const { tool, op } = await plannedOperation(request);
    const before = await snapshot(admin, op.id);

    expectProblem(await operator.plan({ tool, args: { n: 99 }, idempotencyKey: uniqueId("key") }), 403, "forbidden");
    expectProblem(await operator.claim(op.id, { workerId: "op", leaseMs: 60_000 }), 403, "forbidden");
    expectProblem(await operator.heartbeat(op.id, { fence: 0, leaseMs: 60_000 }), 403, "forbidden");
    expectProblem(await operator.dispatch(op.id, { fence: 0 }), 403, "forbidden");
    expectProblem(await operator.outcome(op.id, { fence: 0, result: "confirmed" }), 403, "forbidden");

    expect(await countOps(admin, tool)).toBe(1);
    expect(await snapshot(admin, op.id)).toEqual(before);
    // Reading is allowed to any key.
    expect(expectJson(await operator.getOp(op.id), 200).id).toBe(op.id);
  });

  test("the opledger CLI creates a key while the server runs on the same SQLite database", async ({ request }) => {
    test.setTimeout(60_000);
    const { stdout } = await opledgerCli(["create-api-key", "--name", uniqueId("cli"), "--scopes", "agent"]);
    const { key } = parseCreatedKey(stdout);
    expect(expectJson(await api(request, key).list({ limit: 1 }), 200).items.length).toBeLessThanOrEqual(1);
  });
});
