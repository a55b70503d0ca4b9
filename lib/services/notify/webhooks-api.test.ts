// The webhook API and the Webhooks page's actions, tried as an attacker would: only an admin (an admin-scope key, or a
// person with the admin role) reads or changes webhooks; every bad field is a clear error with nothing changed; an
// edit must name the version it saw; the secret's value is never shown.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Ledger } from "@/lib/ledger/ledger";
import type * as SessionModule from "@/lib/platform/auth/session";
import type { SessionUser } from "@/lib/platform/auth/session";
import { createApiKey } from "@/lib/platform/auth/api-keys";
import { insertUser } from "@/tests/helpers/console-users";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { newWhsec, startReceiver, type Receiver } from "./test-receiver.test-helper";

const fixture = vi.hoisted(() => {
  process.env.OPLEDGER_OUTBOUND_ALLOW_PRIVATE = "on";
  return { user: null as SessionUser | null };
});
const SECRET = newWhsec();
process.env.OPLEDGER_SECRET_API_HOOK = SECRET;
process.env.OPLEDGER_SECRET_NOT_WHSEC = "plain-token-value";

vi.mock("@/lib/platform/server/startup", () => ({ ensureStarted: () => Promise.resolve() }));
vi.mock("@/lib/platform/auth/session", async (original) => {
  const { mockedSession } = await import("@/tests/helpers/session-mock");
  return mockedSession(await original<typeof SessionModule>(), fixture);
});
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const { startAgentPlane } = await import("@/tests/helpers/agent-plane");
const actions = await import("@/lib/console/actions/webhook-actions");

let t: TestDb;
let receiver: Receiver;
const keys: Record<"agent" | "operator" | "admin", string> = { agent: "", operator: "", admin: "" };
const users: Record<"viewer" | "operator" | "admin", SessionUser> = {} as never;

beforeEach(async () => {
  t = await createTestDb();
  receiver = await startReceiver();
  (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger = t.ledger;
  const now = new Date();
  for (const role of ["viewer", "operator", "admin"] as const) {
    const u = await insertUser(t.db, { email: `${role}@example.test`, role, password: "correct horse battery" });
    users[role] = { id: u.id, email: u.email, name: u.email, role };
  }
  const system = { type: "system", id: "system", label: "test" } as const;
  keys.agent = (await createApiKey(t.ledger, { name: "agent", scopes: ["agent"] }, system, now)).key;
  keys.operator = (
    await createApiKey(t.ledger, { name: "op", scopes: ["operator"], ownerUserId: users.operator.id }, system, now)
  ).key;
  keys.admin = (
    await createApiKey(t.ledger, { name: "adm", scopes: ["admin"], ownerUserId: users.admin.id }, system, now)
  ).key;
  fixture.user = null;
});
afterEach(async () => {
  await receiver.close();
  await t.close();
});

const plane = await startAgentPlane();
afterAll(() => plane.close());

/** The request, sent to the agent plane over HTTP. */
const send = (request: Request): Promise<Response> => fetch(request);

function req(method: string, path: string, key: string | null, body?: unknown): Request {
  return new Request(`${plane.url}/api/v1/webhooks${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

const good = () => ({
  url: receiver.url,
  events: ["operation.unknown", "approval.requested"],
  secret: "OPLEDGER_SECRET_API_HOOK",
});

async function put(name: string, body: unknown, key = keys.admin) {
  const res = await send(req("PUT", `/${name}`, key, body));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("who may", () => {
  it("lets only an admin-scope key read, change, test and delete webhooks; agent and operator keys get 403, no key 401", async () => {
    expect((await put("oncall", good())).status).toBe(201);
    for (const key of [keys.agent, keys.operator]) {
      expect((await put("oncall", { ...good(), expectedVersion: 1, url: "http://127.0.0.1:1/x" }, key)).status).toBe(
        403,
      );
      expect((await send(req("GET", "/oncall", key))).status).toBe(403);
      expect((await send(req("GET", "", key))).status).toBe(403);
      expect((await send(req("POST", "/oncall/test", key))).status).toBe(403);
      expect((await send(req("GET", "/oncall/deliveries", key))).status).toBe(403);
      expect((await send(req("DELETE", "/oncall", key))).status).toBe(403);
    }
    expect((await send(req("GET", "/oncall", null))).status).toBe(401);
    expect(await t.db.webhook.findUniqueOrThrow({ where: { name: "oncall" } })).toMatchObject({
      version: 1,
      url: receiver.url,
    });
    expect(await t.db.webhookDelivery.count()).toBe(0);

    const read = (await (await send(req("GET", "/oncall", keys.admin))).json()) as Record<string, unknown>;
    expect(read).toMatchObject({ name: "oncall", secret: "OPLEDGER_SECRET_API_HOOK", version: 1, format: "json" });
    expect(JSON.stringify(read)).not.toContain(SECRET.slice(6));
    const queued = await send(req("POST", "/oncall/test", keys.admin));
    expect(queued.status).toBe(202);
    const log = (await (await send(req("GET", "/oncall/deliveries", keys.admin))).json()) as {
      items: { eventType: string; status: string }[];
    };
    expect(log.items).toMatchObject([{ eventType: "webhook.test", status: "pending" }]);
    expect((await send(req("DELETE", "/oncall?expectedVersion=1", keys.admin))).status).toBe(204);
    const audit = await t.db.auditEvent.findMany({ where: { subjectType: "webhook" }, orderBy: { seq: "asc" } });
    expect(audit.map((a) => a.action)).toEqual(["webhook.created", "webhook.test_sent", "webhook.deleted"]);
    expect(audit.every((a) => a.onBehalfOf === users.admin.id)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(SECRET.slice(6));
  });

  it("lets only an admin person use the page's actions; a viewer, an operator and nobody signed in change nothing", async () => {
    const input = { name: "oncall", ...good() };
    for (const who of [null, users.viewer, users.operator]) {
      fixture.user = who;
      const result = await actions.saveWebhookAction(input);
      expect(result).toMatchObject({ ok: false, code: who ? "forbidden" : "unauthenticated" });
    }
    expect(await t.db.webhook.count()).toBe(0);
    fixture.user = users.admin;
    const saved = await actions.saveWebhookAction({ ...input, reason: "page the on-call" });
    expect(saved).toMatchObject({ ok: true, data: { created: true, webhook: { version: 1 } } });
    fixture.user = users.operator;
    expect(await actions.sendTestEventAction({ name: "oncall", reason: "try" })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await actions.deleteWebhookAction({ name: "oncall", expectedVersion: 1, reason: "x" })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    fixture.user = users.admin;
    expect(await actions.sendTestEventAction({ name: "oncall", reason: "" })).toMatchObject({
      ok: false,
      code: "invalid_input",
    });
    expect(await actions.sendTestEventAction({ name: "oncall", reason: "check the pager" })).toMatchObject({
      ok: true,
    });
    expect(await actions.deleteWebhookAction({ name: "oncall", expectedVersion: 0, reason: "gone" })).toMatchObject({
      ok: false,
      code: "write_conflict",
    });
    expect(await actions.deleteWebhookAction({ name: "oncall", expectedVersion: 1, reason: "gone" })).toMatchObject({
      ok: true,
    });
    expect(await t.db.webhook.count()).toBe(0);
  });
});

describe("bad input", () => {
  it.each([
    ["a URL that is not http(s)", { url: "ftp://example.com/hook" }, "url", /http or https/],
    ["a URL that is not a URL", { url: "not a url" }, "url", /absolute/],
    ["a URL to a metadata address", { url: "http://169.254.169.254/latest" }, "url", /never go there/],
    ["a URL with credentials", { url: "https://u:p@example.com/" }, "url", /user name or password/],
    ["a secret that is not an OPLEDGER_SECRET_ name", { secret: "NEXTAUTH_SECRET" }, "secret", /OPLEDGER_SECRET_/],
    ["a secret that is not set", { secret: "OPLEDGER_SECRET_NOWHERE" }, "secret", /not set/],
    ["a secret that is not whsec_", { secret: "OPLEDGER_SECRET_NOT_WHSEC" }, "secret", /whsec_/],
    ["an unknown event type", { events: ["operation.unknown", "payment.done"] }, "events", /payment\.done/],
  ])("refuses %s with 422 naming the field, and stores nothing", async (_what, change, field, message) => {
    const { status, body } = await put("oncall", { ...good(), ...change });
    expect(status).toBe(422);
    expect(body).toMatchObject({ code: "invalid_webhook" });
    expect((body.errors as Record<string, string[]>)[field]?.join(" ")).toMatch(message);
    expect(JSON.stringify(body)).not.toContain("plain-token-value");
    expect(await t.db.webhook.count()).toBe(0);
    expect(await t.db.auditEvent.count({ where: { subjectType: "webhook" } })).toBe(0);
  });

  it.each([
    ["no events", { events: [] }],
    ["an unknown field", { colour: "red" }],
    ["a format that does not exist", { format: "xml" }],
    ["a URL of the wrong type", { url: 42 }],
  ])("refuses %s with 400", async (_what, change) => {
    const { status, body } = await put("oncall", { ...good(), ...change });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "invalid_body" });
    expect(await t.db.webhook.count()).toBe(0);
  });

  it("refuses malformed JSON and a bad name with 400, an unknown webhook with 404", async () => {
    expect((await put("oncall", "{not json")).status).toBe(400);
    expect((await put("bad name!", good())).status).toBe(400);
    expect((await send(req("GET", "/nobody", keys.admin))).status).toBe(404);
    expect((await send(req("POST", "/nobody/test", keys.admin))).status).toBe(404);
    expect(await t.db.webhook.count()).toBe(0);
  });

  it("refuses an update that names no version or an old one (409), and keeps the same rules as they are", async () => {
    expect((await put("oncall", good())).status).toBe(201);
    const noVersion = await put("oncall", { ...good(), format: "slack" });
    expect(noVersion).toMatchObject({ status: 409, body: { code: "webhook_conflict" } });
    const changed = await put("oncall", { ...good(), format: "slack", expectedVersion: 1 });
    expect(changed).toMatchObject({ status: 200, body: { version: 2, format: "slack" } });
    const stale = await put("oncall", { ...good(), expectedVersion: 1 });
    expect(stale).toMatchObject({ status: 409, body: { code: "webhook_conflict" } });
    const same = await put("oncall", { ...good(), format: "slack", expectedVersion: 2 });
    expect(same).toMatchObject({ status: 200, body: { version: 2 } });
    expect(await t.db.webhook.findUniqueOrThrow({ where: { name: "oncall" } })).toMatchObject({
      version: 2,
      format: "slack",
    });
    expect(await t.db.auditEvent.count({ where: { subjectType: "webhook" } })).toBe(2);
    expect((await send(req("DELETE", "/oncall?expectedVersion=1", keys.admin))).status).toBe(409);
    expect(await t.db.webhook.count()).toBe(1);
  });
});
