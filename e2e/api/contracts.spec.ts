// Agent API v1, tool contracts (docs/api.md#contracts): create, replace, read, validation, scopes, optimistic
// concurrency, and the MCP gateway's fields (docs/mcp.md#the-contract-fields-the-gateway-reads) with gateway tool
// names.
import { expect, test } from "../fixtures";
import {
  api,
  type Contract,
  contractBody,
  createKey,
  errorFields,
  expectJson,
  expectProblem,
  ISO_UTC,
  putContract,
  uniqueId,
  uniqueTool,
} from "../fixtures/api";

/** A contract as answered since the MCP gateway: its gateway fields always carry the value in force. */
type GatewayContract = Contract & { timeoutMs: number; keyFrom: string; toolError: string; mode: string };

const GATEWAY_DEFAULTS = { timeoutMs: 30_000, keyFrom: "args", toolError: "fatal", mode: "enforce" };

/** The suite's usual body with gateway fields (valid or not) laid over it. */
const gatewayBody = (fields: Record<string, unknown>) => ({ ...contractBody(), ...fields });

test.describe("PUT /api/v1/contracts/{tool}", () => {
  test("creates version 1 (201), keeps it for an identical body (200), and a change makes version 2", async ({
    request,
  }) => {
    const client = api(request);
    const tool = uniqueTool("contract");
    const body = contractBody({
      effect: "IDEMPOTENT",
      idempotencyKey: "required",
      maxAttempts: 4,
      backoff: { baseMs: 200, maxMs: 5000 },
      keyRetentionMs: 86_400_000,
      dependency: "e2e-payments",
      description: "charges a card",
    });

    const created = expectJson(await client.putContract(tool, body), 201);
    expect(created).toEqual(
      expect.objectContaining({
        tool,
        version: 1,
        effect: "IDEMPOTENT",
        idempotencyKey: "required",
        reconcile: null,
        approval: "not_required",
        maxAttempts: 4,
        backoff: { baseMs: 200, maxMs: 5000 },
        keyRetentionMs: 86_400_000,
        dependency: "e2e-payments",
        description: "charges a card",
      }),
    );
    expect(created.createdAt).toMatch(ISO_UTC);

    // The same body again, even with its keys in another order: same version, 200, nothing new.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const same = expectJson(await client.putContract(tool, reordered), 200);
    expect(same.version).toBe(1);
    expect(same.createdAt).toBe(created.createdAt);

    const changed = expectJson(await client.putContract(tool, { ...body, maxAttempts: 5 }), 200);
    expect(changed.version).toBe(2);
    expect(changed.maxAttempts).toBe(5);

    // And back to the first body is a change too: a new version, never a rewind.
    const back = expectJson(await client.putContract(tool, body), 200);
    expect(back.version).toBe(3);
    expect(back.maxAttempts).toBe(4);
  });

  test("GET one and GET the list answer the current version", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("contract");
    const other = uniqueTool("contract");
    await putContract(request, tool, { effect: "PURE", maxAttempts: 2 });
    await putContract(request, tool, { effect: "PURE", maxAttempts: 7, description: "v2" });
    await putContract(request, other, { effect: "NON_RETRYABLE" });

    const one = expectJson(await client.getContract(tool), 200);
    expect(one).toEqual(
      expect.objectContaining({ tool, version: 2, effect: "PURE", maxAttempts: 7, description: "v2" }),
    );

    const list = expectJson(await client.listContracts(), 200);
    expect(Array.isArray(list.items)).toBe(true);
    expect(list).toHaveProperty("nextCursor");
    const mine = list.items.filter((c: { tool: string }) => c.tool === tool || c.tool === other);
    expect(mine).toHaveLength(2);
    expect(mine.find((c: { tool: string }) => c.tool === tool)).toEqual(
      expect.objectContaining({ version: 2, maxAttempts: 7 }),
    );
    expect(mine.find((c: { tool: string }) => c.tool === other)).toEqual(
      expect.objectContaining({ version: 1, effect: "NON_RETRYABLE" }),
    );
  });

  test("GET of a tool without a contract is a 404 problem", async ({ request }) => {
    expectProblem(await api(request).getContract(uniqueTool("missing")), 404, "not_found");
  });

  test("an invalid body is a 400 problem naming each bad field, and nothing is written", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("invalid");
    const result = await client.putContract(tool, {
      effect: "SOMETIMES",
      idempotencyKey: "maybe",
      // reconcile missing entirely
      approval: "yes",
      maxAttempts: 0,
      backoff: { baseMs: 1000, maxMs: 10 },
      keyRetentionMs: "a day",
    });
    const problem = expectProblem(result, 400, "invalid_body");
    expect(errorFields(problem)).toEqual(
      ["approval", "backoff.maxMs", "effect", "idempotencyKey", "keyRetentionMs", "maxAttempts", "reconcile"].sort(),
    );
    for (const messages of Object.values(problem.errors ?? {})) {
      expect(Array.isArray(messages) && messages.length > 0 && typeof messages[0] === "string").toBe(true);
    }
    expectProblem(await client.getContract(tool), 404, "not_found");
  });

  test("a cross-field rule is reported on its field: an IDEMPOTENT tool cannot do without a key", async ({
    request,
  }) => {
    const tool = uniqueTool("invalid");
    const result = await api(request).putContract(
      tool,
      contractBody({ effect: "IDEMPOTENT", idempotencyKey: "unsupported" }),
    );
    const problem = expectProblem(result, 400, "invalid_body");
    expect(errorFields(problem)).toEqual(["idempotencyKey"]);
  });

  test("an unknown field is refused and named", async ({ request }) => {
    const tool = uniqueTool("invalid");
    const result = await api(request).putContract(tool, { ...contractBody(), colour: "blue" });
    const problem = expectProblem(result, 400, "invalid_body");
    expect(JSON.stringify(problem.errors)).toContain("colour");
    expectProblem(await api(request).getContract(tool), 404, "not_found");
  });

  test("a bad tool name in the path is a 400 problem", async ({ request }) => {
    const result = await api(request).send("PUT", "/api/v1/contracts/bad%20name!", { data: contractBody() });
    expectProblem(result, 400, "invalid_body");
  });

  test("an agent-scoped or operator-scoped key may read but not write contracts: 403, nothing written", async ({
    request,
  }) => {
    const tool = uniqueTool("scoped");
    for (const scopes of [["agent"], ["operator"], ["agent", "operator"]] as const) {
      const { key } = await createKey([...scopes]);
      const client = api(request, key);
      expectProblem(await client.putContract(tool, contractBody()), 403, "forbidden");
      expectProblem(await client.getContract(tool), 404, "not_found");
    }
    await putContract(request, tool);
    const { key } = await createKey(["agent"]);
    const agent = api(request, key);
    expect(expectJson(await agent.getContract(tool), 200).version).toBe(1);
    expectProblem(await agent.putContract(tool, contractBody({ maxAttempts: 9 })), 403, "forbidden");
    expect(expectJson(await agent.getContract(tool), 200)).toEqual(
      expect.objectContaining({ version: 1, maxAttempts: 3 }),
    );
  });

  test("an admin-scoped key writes contracts", async ({ request }) => {
    const { key } = await createKey(["admin"]);
    const tool = uniqueTool("admin");
    const created = expectJson(await api(request, key).putContract(tool, contractBody()), 201);
    expect(created.version).toBe(1);
  });

  test("no key or a bad key is a 401 problem and nothing is written", async ({ request }) => {
    const tool = uniqueTool("unauth");
    const attempts = [
      api(request, null),
      api(request, "opl_this_key_was_never_issued_0123456789abcdef"),
      api(request, ""),
    ];
    for (const client of attempts) {
      const put = await client.putContract(tool, contractBody());
      expectProblem(put, 401, "unauthorized");
      expect(put.headers["www-authenticate"]).toMatch(/^Bearer/);
      expectProblem(await client.getContract(tool), 401, "unauthorized");
      expectProblem(await client.listContracts(), 401, "unauthorized");
    }
    // A key in another scheme is not a bearer token.
    const basic = await api(request, null).send("GET", "/api/v1/contracts", {
      headers: { authorization: `Basic ${Buffer.from("admin:admin").toString("base64")}` },
    });
    expectProblem(basic, 401, "unauthorized");
    expectProblem(await api(request).getContract(tool), 404, "not_found");
  });

  test("a stale expectedVersion is a 409 contract_conflict and the contract stays as it was", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("conflict");
    expect(expectJson(await client.putContract(tool, contractBody({ expectedVersion: 0 })), 201).version).toBe(1);
    expect(
      expectJson(await client.putContract(tool, contractBody({ maxAttempts: 4, expectedVersion: 1 })), 200).version,
    ).toBe(2);

    // A second editor who opened version 1 saves after the first one.
    const stale = await client.putContract(tool, contractBody({ maxAttempts: 9, expectedVersion: 1 }));
    const problem = expectProblem(stale, 409, "contract_conflict");
    expect(problem.detail).toContain("2");

    expect(expectJson(await client.getContract(tool), 200)).toEqual(
      expect.objectContaining({ version: 2, maxAttempts: 4 }),
    );
    // Creating a tool that already exists "from version 0" is stale as well.
    expectProblem(await client.putContract(tool, contractBody({ expectedVersion: 0 })), 409, "contract_conflict");
  });

  test("operations keep the contract version they were planned under", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("versioned");
    await putContract(request, tool, { maxAttempts: 3 });
    const op = expectJson(await client.plan({ tool, args: { n: 1 } }), 201);
    expect(op.contractVersion).toBe(1);
    expect(op.maxAttempts).toBe(3);

    expect((await putContract(request, tool, { maxAttempts: 6 })).version).toBe(2);
    const later = expectJson(await client.plan({ tool, args: { n: 2 } }), 201);
    expect(later.contractVersion).toBe(2);

    const detail = expectJson(await client.getOp(op.id), 200);
    expect(detail.contractVersion).toBe(1);
    expect(detail.maxAttempts).toBe(3);
  });
});

test.describe("PUT /api/v1/contracts/{tool}: the MCP gateway's fields", () => {
  test("a contract without them answers their defaults, and each valid value is stored and answered", async ({
    request,
  }) => {
    const client = api(request);
    const tool = uniqueTool("gateway");
    const created = expectJson(await client.putContract(tool, contractBody()), 201) as GatewayContract;
    expect(created).toMatchObject(GATEWAY_DEFAULTS);

    const valid: [keyof typeof GATEWAY_DEFAULTS, string | number][] = [
      ["timeoutMs", 100],
      ["timeoutMs", 600_000],
      ["keyFrom", "refund:{order_id}"],
      ["keyFrom", "{customer.id}-{amount}"],
      ["toolError", "transient"],
      ["toolError", "unknown"],
      ["mode", "observe"],
    ];
    let version = created.version;
    for (const [field, value] of valid) {
      const answered = expectJson(await client.putContract(tool, gatewayBody({ [field]: value })), 200);
      expect(answered, `${field}: ${value}`).toMatchObject({ ...GATEWAY_DEFAULTS, [field]: value });
      expect(answered.version).toBe(++version);
    }
    const all = { timeoutMs: 5000, keyFrom: "refund:{order_id}", toolError: "unknown", mode: "observe" };
    expect(expectJson(await client.putContract(tool, gatewayBody(all)), 200)).toMatchObject(all);
    expect(expectJson(await client.getContract(tool), 200)).toMatchObject({ ...all, version: version + 1 });
  });

  test.describe("an invalid value is a 400 naming its field, and nothing is written", () => {
    for (const [field, value] of [
      ["timeoutMs", 50],
      ["timeoutMs", 600_001],
      ["keyFrom", "refund"],
      ["keyFrom", "refund:{}"],
      ["toolError", "maybe"],
      ["mode", "shadow"],
    ] as const) {
      test(`${field}: ${JSON.stringify(value)}`, async ({ request }) => {
        const client = api(request);
        const fresh = uniqueTool("invalid");
        expect(
          errorFields(
            expectProblem(await client.putContract(fresh, gatewayBody({ [field]: value })), 400, "invalid_body"),
          ),
        ).toEqual([field]);
        expectProblem(await client.getContract(fresh), 404, "not_found");

        // On an existing contract too: the version stays as it was.
        const existing = uniqueTool("invalid");
        await putContract(request, existing);
        expectProblem(await client.putContract(existing, gatewayBody({ [field]: value })), 400, "invalid_body");
        expect(expectJson(await client.getContract(existing), 200)).toMatchObject({ version: 1, ...GATEWAY_DEFAULTS });
      });
    }

    test("all four at once are all listed", async ({ request }) => {
      const tool = uniqueTool("invalid");
      const bad = { timeoutMs: 50, keyFrom: "refund", toolError: "maybe", mode: "shadow" };
      const problem = expectProblem(await api(request).putContract(tool, gatewayBody(bad)), 400, "invalid_body");
      expect(errorFields(problem)).toEqual(["keyFrom", "mode", "timeoutMs", "toolError"]);
      expect(problem.errors?.keyFrom?.[0]).toMatch(/template naming at least one argument/);
      expectProblem(await api(request).getContract(tool), 404, "not_found");
    });
  });

  test("an identical PUT keeps the version, and so does a body that spells out the defaults", async ({ request }) => {
    const client = api(request);
    const tool = uniqueTool("gateway");
    const body = gatewayBody({
      timeoutMs: 2500,
      keyFrom: "refund:{order_id}",
      toolError: "transient",
      mode: "observe",
    });
    expect(expectJson(await client.putContract(tool, body), 201).version).toBe(1);
    expect(expectJson(await client.putContract(tool, body), 200).version).toBe(1);

    const plain = uniqueTool("gateway");
    expect(expectJson(await client.putContract(plain, contractBody()), 201).version).toBe(1);
    const spelled = expectJson(await client.putContract(plain, gatewayBody(GATEWAY_DEFAULTS)), 200);
    expect(spelled.version).toBe(1);
    const nulls = { timeoutMs: null, keyFrom: null, toolError: null, mode: null };
    expect(expectJson(await client.putContract(plain, gatewayBody(nulls)), 200).version).toBe(1);
  });

  test("a body written before the gateway fields existed keeps its version; leaving observe mode is a change", async ({
    request,
  }) => {
    const client = api(request);
    const tool = uniqueTool("gateway");
    // The body older clients send: none of the four fields.
    const old = contractBody({ effect: "REPLAYABLE", maxAttempts: 4, keyRetentionMs: 3_600_000 });
    const created = expectJson(await client.putContract(tool, old), 201);
    const again = expectJson(await client.putContract(tool, old), 200);
    expect(again).toMatchObject({ version: 1, createdAt: created.createdAt });

    expect(expectJson(await client.putContract(tool, { ...old, mode: "observe" }), 200).version).toBe(2);
    // The old body again says "enforce" by leaving the mode out: a new version, never a silent keep.
    expect(expectJson(await client.putContract(tool, old), 200)).toMatchObject({ version: 3, mode: "enforce" });
  });

  test("a gateway tool name (<upstream>__<tool>) is a tool name: PUT, GET, the list and a plan", async ({
    request,
  }) => {
    const client = api(request);
    const tool = `${uniqueId("fs").replaceAll("-", "_")}__write_file`;
    expect(expectJson(await client.putContract(tool, gatewayBody({ mode: "observe" })), 201)).toMatchObject({
      tool,
      version: 1,
      mode: "observe",
    });
    expect(expectJson(await client.getContract(tool), 200)).toMatchObject({ tool, version: 1 });
    const list = expectJson(await client.listContracts(), 200);
    expect(list.items.map((c: { tool: string }) => c.tool)).toContain(tool);
    const op = expectJson(await client.plan({ tool, args: { path: "/tmp/x", content: "y" } }), 201);
    expect(op).toMatchObject({ tool, contractVersion: 1 });
  });
});
