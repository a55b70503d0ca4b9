// The demo providers' one local HTTP server: payments, email, deploy and search, with faults on demand and a record of
// every applied effect.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { deployRouter } from "./deploy";
import { emailRouter } from "./email";
import { FaultPlan, faultsBodySchema, PROVIDER_NAMES, type FaultKind, type ProviderName } from "./faults";
import { paymentsRouter } from "./payments";
import {
  isReply,
  problem,
  type ProviderContext,
  type ProviderRequest,
  type Reply,
  type RouteMatch,
  type Router,
} from "./routes";
import { searchRouter } from "./search";
import { ProviderStore } from "./store";

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_BODY_BYTES = 64 * 1024;

export interface ProviderServerOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Chance that an effect or read meets a random fault (default 0). */
  defaultFaultRate?: number;
  random?: () => number;
  now?: () => number;
  /** JSON-lines file that keeps effects and keys across restarts; null keeps them in memory. */
  stateFile?: string | null;
  /** The exact Authorization header value the payments API requires; null accepts any request. */
  paymentsAuthorization?: string | null;
  /** How long a "timeout after commit" keeps the connection hanging before dropping it. */
  hangMs?: number;
  rolloutMs?: number;
  keyRetentionMs?: number;
}

export interface ProviderServer {
  url: string;
  port: number;
  faults: FaultPlan;
  store: ProviderStore;
  close: () => Promise<void>;
}

function send(res: ServerResponse, reply: Reply): void {
  const body = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...reply.headers,
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<{ ok: true; body: unknown } | { ok: false; reply: Reply }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES)
      return { ok: false, reply: problem(413, "body_too_large", "The body is larger than 64 KiB.") };
    chunks.push(buffer);
  }
  if (size === 0) return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return { ok: false, reply: problem(400, "invalid_json", "The body is not valid JSON.") };
  }
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

export async function startProviderServer(options: ProviderServerOptions = {}): Promise<ProviderServer> {
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const hangMs = options.hangMs ?? 120_000;
  const faults = new FaultPlan(options.defaultFaultRate ?? 0, random, now);
  const store = new ProviderStore(options.stateFile ?? null, options.keyRetentionMs ?? DAY_MS, 30 * DAY_MS, now);
  const routers: Router[] = [
    paymentsRouter({ authorization: options.paymentsAuthorization ?? null }),
    emailRouter(),
    deployRouter({ rolloutMs: options.rolloutMs ?? 3000 }),
    searchRouter(),
  ];
  const ctx: ProviderContext = {
    store,
    now,
    newId: (prefix) =>
      `${prefix}${now().toString(36)}${Math.floor(random() * 36 ** 4)
        .toString(36)
        .padStart(4, "0")}`,
  };
  const hanging = new Set<Socket>();

  const admin = (req: ProviderRequest): Reply | null => {
    switch (`${req.method} ${req.path}`) {
      case "GET /_health":
        return { status: 200, body: { ok: true } };
      case "GET /_effects": {
        const provider = req.query.get("provider");
        const operationId = req.query.get("operationId");
        const effects = store.effects.filter(
          (e) => (!provider || e.provider === provider) && (!operationId || e.operationId === operationId),
        );
        return { status: 200, body: { count: effects.length, effects } };
      }
      case "GET /_faults":
        return { status: 200, body: { defaultRate: faults.rate, rules: faults.list() } };
      case "POST /_faults": {
        const parsed = faultsBodySchema.safeParse(req.body);
        if (!parsed.success)
          return problem(
            400,
            "invalid_fault",
            parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
          );
        if ("defaultRate" in parsed.data) {
          faults.setDefaultRate(parsed.data.defaultRate);
          return { status: 200, body: { defaultRate: faults.rate } };
        }
        return { status: 201, body: faults.add(parsed.data) };
      }
      case "DELETE /_faults": {
        const tool = req.query.get("tool");
        faults.clear((PROVIDER_NAMES as readonly string[]).includes(tool ?? "") ? (tool as ProviderName) : undefined);
        return { status: 200, body: { defaultRate: faults.rate, rules: faults.list() } };
      }
      default:
        return null;
    }
  };

  /** Serves a matched route under the fault it draws. */
  const serve = (match: RouteMatch, req: IncomingMessage, res: ServerResponse): void => {
    const fault: FaultKind | null = faults.pick(match.provider, match.kind);
    switch (fault) {
      case null:
        return send(res, match.commit());
      case "outage":
        return send(res, {
          ...problem(503, "service_unavailable", `The ${match.provider} API is down (outage).`),
          headers: { "retry-after": "5" },
        });
      case "rate_limited":
        return send(res, { ...problem(429, "rate_limited", "Too many requests."), headers: { "retry-after": "1" } });
      case "server_error":
        return send(res, problem(500, "internal_error", "Something went wrong on our side; nothing was done."));
      case "client_error":
        return send(res, match.refuse() ?? match.commit());
      case "reset_before_commit":
        req.socket.destroy();
        return;
      case "timeout_after_commit": {
        match.commit();
        // The effect exists; the answer never leaves. The caller's own timeout ends the wait.
        const socket = req.socket;
        hanging.add(socket);
        socket.once("close", () => hanging.delete(socket));
        setTimeout(() => socket.destroy(), hangMs).unref();
        return;
      }
      default: {
        const unhandled: never = fault;
        throw new Error(`unhandled fault ${String(unhandled)}`);
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://provider.local");
    const read = await readBody(req);
    if (!read.ok) return send(res, read.reply);
    const attempt = Number(headerValue(req, "x-opledger-attempt"));
    const request: ProviderRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: read.body,
      operationId: headerValue(req, "x-opledger-operation-id"),
      attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
    };
    const adminReply = admin(request);
    if (adminReply) return send(res, adminReply);
    for (const router of routers) {
      const match = router(request, ctx);
      if (match === null) continue;
      if (isReply(match)) return send(res, match);
      return serve(match, req, res);
    }
    send(res, problem(404, "not_found", `No demo provider serves ${request.method} ${request.path}.`));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, problem(500, "internal_error", error instanceof Error ? error.message : "error"));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    faults,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of hanging) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
