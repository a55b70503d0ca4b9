// The demo agent's tools: what each one asks for, and how its call reaches the demo providers and is read back.
import type { ProviderCallContext, ProviderResult } from "@/lib/executor";

export interface ToolCallSettings {
  providerUrl: string;
  /** The Authorization header value of the payments API. */
  paymentsAuthorization: string | null;
  fetch: typeof fetch;
}

export interface DemoTool {
  tool: string;
  /** Share of the agent's calls. */
  weight: number;
  args: (random: () => number) => Record<string, unknown>;
  call: (
    args: Record<string, unknown>,
    ctx: ProviderCallContext,
    settings: ToolCallSettings,
  ) => Promise<ProviderResult>;
}

const CUSTOMERS = [
  "cus_ada",
  "cus_grace",
  "cus_linus",
  "cus_barbara",
  "cus_ken",
  "cus_margaret",
  "cus_dennis",
  "cus_frances",
];
const EMAILS = ["ada@example.com", "grace@example.com", "linus@example.com", "barbara@example.com", "ken@example.com"];
const TEMPLATES = ["receipt", "password-reset", "shipping-update", "refund-confirmation"];
const SERVICES = ["checkout", "search", "billing", "notifications"];
const QUERIES = ["refund policy", "idempotency keys", "rate limits", "webhook retries", "deploy freeze"];

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length)] ?? (list[0] as T);
}

/** A Retry-After header (seconds or an HTTP date) in milliseconds. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/**
 * Sends one request and reads the answer. A 2xx is a confirmation; any other status is a definite error answer
 * (nothing applied, by the provider's own word). A network error or a timeout is thrown as it is: runTool reports it
 * as `unknown`, because the request may have been applied.
 */
async function send(
  settings: ToolCallSettings,
  ctx: ProviderCallContext,
  request: { method: "GET" | "POST"; path: string; body?: unknown; headers?: Record<string, string> },
): Promise<ProviderResult> {
  const response = await settings.fetch(`${settings.providerUrl}${request.path}`, {
    method: request.method,
    headers: {
      accept: "application/json",
      ...(request.body === undefined ? {} : { "content-type": "application/json" }),
      // Lets the providers' effect log name the operation and attempt, so duplicates can be counted.
      "x-opledger-operation-id": ctx.operationId,
      "x-opledger-attempt": String(ctx.attempt),
      ...request.headers,
    },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: ctx.signal,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    json = undefined;
  }
  const record = json !== null && typeof json === "object" ? (json as Record<string, unknown>) : {};
  if (response.ok) {
    return { ok: true, providerId: typeof record.id === "string" ? record.id : undefined, value: json };
  }
  const error =
    record.error !== null && typeof record.error === "object" ? (record.error as Record<string, unknown>) : {};
  return {
    ok: false,
    error: {
      httpStatus: response.status,
      message: typeof error.message === "string" ? error.message : `HTTP ${response.status}`,
      retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
    },
  };
}

function paymentsHeaders(settings: ToolCallSettings, ctx: ProviderCallContext): Record<string, string> {
  return {
    "idempotency-key": ctx.idempotencyKey,
    ...(settings.paymentsAuthorization ? { authorization: settings.paymentsAuthorization } : {}),
  };
}

export const DEMO_TOOLS: DemoTool[] = [
  {
    tool: "payments.charge",
    weight: 40,
    args: (random) => ({
      customer: pick(CUSTOMERS, random),
      amountCents: 500 + Math.floor(random() * 20_000),
      currency: "EUR",
      order: `ord_${Math.floor(random() * 1e9).toString(36)}`,
    }),
    call: (args, ctx, settings) =>
      send(settings, ctx, {
        method: "POST",
        path: "/payments/v1/charges",
        body: args,
        headers: paymentsHeaders(settings, ctx),
      }),
  },
  {
    tool: "email.send",
    weight: 20,
    args: (random) => ({
      to: pick(EMAILS, random),
      template: pick(TEMPLATES, random),
      ref: Math.floor(random() * 1e9).toString(36),
    }),
    call: (args, ctx, settings) => send(settings, ctx, { method: "POST", path: "/email/v1/messages", body: args }),
  },
  {
    tool: "deploy.release",
    weight: 15,
    args: (random) => ({
      service: pick(SERVICES, random),
      version: `2026.12.${1 + Math.floor(random() * 28)}-${Math.floor(random() * 1000)}`,
    }),
    // The operation's key is the deployment's client token: the lookup finds the rollout by it.
    call: (args, ctx, settings) =>
      send(settings, ctx, {
        method: "POST",
        path: "/deploy/v1/deployments",
        body: { ...args, clientToken: ctx.idempotencyKey },
      }),
  },
  {
    tool: "docs.search",
    weight: 22,
    args: (random) => ({ query: pick(QUERIES, random) }),
    call: (args, ctx, settings) =>
      send(settings, ctx, { method: "GET", path: `/search/v1/search?q=${encodeURIComponent(String(args.query))}` }),
  },
  {
    tool: "refunds.issue",
    weight: 3,
    args: (random) => ({
      charge: `ch_${Math.floor(random() * 1e9).toString(36)}`,
      amountCents: 100 + Math.floor(random() * 5000),
    }),
    call: (args, ctx, settings) =>
      send(settings, ctx, {
        method: "POST",
        path: "/payments/v1/refunds",
        body: args,
        headers: paymentsHeaders(settings, ctx),
      }),
  },
];

export function demoTool(tool: string): DemoTool | undefined {
  return DEMO_TOOLS.find((t) => t.tool === tool);
}

export function pickTool(random: () => number, tools: readonly DemoTool[] = DEMO_TOOLS): DemoTool {
  const total = tools.reduce((sum, t) => sum + t.weight, 0);
  let draw = random() * total;
  for (const t of tools) {
    draw -= t.weight;
    if (draw < 0) return t;
  }
  return tools[tools.length - 1] ?? DEMO_TOOLS[0]!;
}
