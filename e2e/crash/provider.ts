// The crash harness's fault-recording provider: applies effects by side-effect class, answers lookups by key, and can
// kill the calling worker right after it commits.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { EffectClass } from "./matrix";

/** One effect the provider applied: what the harness counts to find duplicates. */
export interface AppliedEffect {
  id: string;
  tool: string;
  idempotencyKey: string;
}

/** A request that reached the provider: a call (POST) or a lookup by key (GET). */
export interface ProviderRequest {
  kind: "call" | "lookup";
  tool: string;
  idempotencyKey: string;
}

/** What happens to the next call with a key: the effect is committed, then the worker dies or the answer is lost. */
export type Fault = { kind: "kill_after_commit"; pid: number } | { kind: "lose_answer" };

const CALL = /^\/tools\/([^/]+)\/(PURE|IDEMPOTENT|REPLAYABLE|UNKNOWN|NON_RETRYABLE)\/calls$/;
const LOOKUP = /^\/tools\/([^/]+)\/effects\/by-key\/([^/]+)$/;

/**
 * Behaves like the providers the classes describe: PURE reads and changes nothing; IDEMPOTENT answers a known key
 * with the effect it already applied (Stripe-like); REPLAYABLE, UNKNOWN and NON_RETRYABLE apply a new effect on every
 * call, so a repeat the ledger should have stopped shows up as a second effect. Every request is recorded, calls not
 * deduplicated: a repeated PURE or IDEMPOTENT call shows in the call count.
 */
export class CrashProvider {
  readonly requests: ProviderRequest[] = [];
  readonly effects: AppliedEffect[] = [];
  /** The keys whose worker this provider killed: proof the window was reached, not a hang ended by a deadline. */
  readonly killed: string[] = [];
  private readonly faults = new Map<string, Fault>();
  private readonly held = new Set<Socket>();
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private url = "";

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const socket of this.held) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Where a worker sends a tool's calls. */
  callUrl(tool: string, effect: EffectClass): string {
    return `${this.url}/tools/${encodeURIComponent(tool)}/${effect}/calls`;
  }

  /** The contract's lookup template for a tool. */
  lookupTemplate(tool: string): string {
    return `${this.url}/tools/${encodeURIComponent(tool)}/effects/by-key/{idempotencyKey}`;
  }

  /** The next call with this key meets the fault (once). */
  arm(idempotencyKey: string, fault: Fault): void {
    this.faults.set(idempotencyKey, fault);
  }

  effectsOf(tool: string): AppliedEffect[] {
    return this.effects.filter((e) => e.tool === tool);
  }

  requestsOf(tool: string, kind: ProviderRequest["kind"]): ProviderRequest[] {
    return this.requests.filter((r) => r.tool === tool && r.kind === kind);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    req.resume();
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://provider.local").pathname;
      const call = req.method === "POST" ? CALL.exec(path) : null;
      const lookup = req.method === "GET" ? LOOKUP.exec(path) : null;
      if (call?.[1] && call[2]) return this.call(decodeURIComponent(call[1]), call[2] as EffectClass, req, res);
      if (lookup?.[1] && lookup[2])
        return this.lookup(decodeURIComponent(lookup[1]), decodeURIComponent(lookup[2]), res);
      answer(res, 404, { error: `nothing at ${req.method} ${path}` });
    });
  }

  private call(tool: string, effect: EffectClass, req: http.IncomingMessage, res: http.ServerResponse): void {
    const header = req.headers["idempotency-key"];
    const idempotencyKey = (Array.isArray(header) ? header[0] : header) ?? "";
    this.requests.push({ kind: "call", tool, idempotencyKey });
    if (!idempotencyKey) return answer(res, 400, { error: "an Idempotency-Key header is required" });
    const known = this.effects.find((e) => e.tool === tool && e.idempotencyKey === idempotencyKey);
    let id: string;
    if (effect === "PURE") {
      id = `read_${this.requests.length}`;
    } else if (effect === "IDEMPOTENT" && known) {
      id = known.id;
    } else {
      id = `eff_${this.effects.length + 1}`;
      this.effects.push({ id, tool, idempotencyKey });
    }
    const fault = this.faults.get(idempotencyKey);
    this.faults.delete(idempotencyKey);
    if (fault?.kind === "kill_after_commit") {
      // Committed; the worker dies before a byte of the answer is written.
      process.kill(fault.pid, "SIGKILL");
      this.killed.push(idempotencyKey);
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "lose_answer") {
      // Committed; the answer never leaves, the worker's own timeout ends its wait.
      this.held.add(req.socket);
      req.socket.once("close", () => this.held.delete(req.socket));
      return;
    }
    answer(res, 200, { id, status: "applied", idempotencyKey });
  }

  private lookup(tool: string, idempotencyKey: string, res: http.ServerResponse): void {
    this.requests.push({ kind: "lookup", tool, idempotencyKey });
    const effect = this.effects.find((e) => e.tool === tool && e.idempotencyKey === idempotencyKey);
    if (!effect) return answer(res, 404, { error: `no effect was applied with the key ${idempotencyKey}` });
    answer(res, 200, { id: effect.id, status: "applied", idempotencyKey });
  }
}

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
