// One upstream: its SDK client, started on first use, restarted lazily with backoff after it exits or fails to
// start, its tools listed and kept fresh, and its calls answered as one of the four outcomes the gateway records.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ToolListChangedNotificationSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { redact } from "@/lib/services/outbound/redact";
import { backoffDelay } from "@/lib/retry-gate/backoff";
import { callOutcome } from "./call-outcome";
import { GATEWAY_TOOL_NAME, gatewayToolName } from "./tool-names";
import type { CallOptions, UpstreamCall, UpstreamState, UpstreamStatus, UpstreamTool } from "./types";
import { openTransport, upstreamTarget, type TransportSettings } from "./upstream-transport";
import type { UpstreamConfig } from "./upstreams-file";

export interface ConnectionSettings extends TransportSettings {
  /** Spawn (or first request) and `initialize`, at most this long. */
  startTimeoutMs: number;
  /** Between restarts: full jitter up to baseMs * 2^(failures-1), at most maxMs. */
  restartBackoff: { baseMs: number; maxMs: number };
  /** A connection that stayed up this long starts its backoff over when it ends. */
  stableAfterMs: number;
  random: () => number;
  now: () => number;
  /** The upstream's tools changed (listed for the first time, list_changed, or gone). */
  onToolsChanged: (upstream: string) => void;
}

/** `tools/list` pages followed at most: a server whose cursor never ends must not hold us forever. */
const MAX_TOOL_PAGES = 100;
/** The SDK's own request timer is set past ours, so only our deadline (and its reason) ever ends a call. */
const SDK_TIMEOUT_MARGIN_MS = 60_000;
const CLIENT_INFO = { name: "opledger", version: "0.1.0" };

interface Live {
  client: Client;
  secrets: string[];
  startedAt: number;
  /** Set when the connection closed, with how. */
  closed: string | null;
  lastStderr: () => string | null;
}

export class UpstreamConnection {
  #state: UpstreamState = "idle";
  #lastError: string | null = null;
  #tools: UpstreamTool[] | null = null;
  #toolsFetchedAt: Date | null = null;
  #live: Live | null = null;
  #starting: Promise<Live | string> | null = null;
  #listing: Promise<void> | null = null;
  #failures = 0;
  #retryAt = 0;

  constructor(
    readonly name: string,
    readonly config: UpstreamConfig,
    private readonly settings: ConnectionSettings,
  ) {}

  status(): UpstreamStatus {
    return {
      name: this.name,
      kind: this.config.kind,
      target: upstreamTarget(this.config),
      state: this.#state,
      lastError: this.#lastError,
      tools: this.#tools,
      toolsFetchedAt: this.#toolsFetchedAt,
    };
  }

  /** Its tools, starting it if needed; none when it cannot start. */
  async tools(): Promise<UpstreamTool[]> {
    const live = await this.#ready();
    if (typeof live === "string") return this.#tools ?? [];
    if (this.#tools === null) await this.#listTools(live);
    return this.#tools ?? [];
  }

  /** The connected SDK client for requests other than tools (prompts, resources), or why there is none. */
  async client(): Promise<Client | string> {
    const live = await this.#ready();
    return typeof live === "string" ? live : live.client;
  }

  async call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<UpstreamCall> {
    const live = await this.#readyWithin(options.timeoutMs);
    if (typeof live === "string") return { outcome: "not_sent", reason: live };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const hadSession = "sessionId" in (live.client.transport ?? {}) && live.client.transport?.sessionId !== undefined;
    try {
      const result = await live.client.request(
        {
          method: "tools/call",
          params: { name: tool, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) },
        },
        CallToolResultSchema,
        {
          signal: controller.signal,
          timeout: options.timeoutMs + SDK_TIMEOUT_MARGIN_MS,
          // Progress from the upstream must not stretch the deadline the contract set.
          resetTimeoutOnProgress: false,
        },
      );
      return { outcome: "answered", result };
    } catch (error) {
      const outcome = callOutcome({
        upstream: this.name,
        error,
        timedOut,
        timeoutMs: options.timeoutMs,
        closed: live.closed !== null,
        closedReason: live.closed,
        hadSession,
      });
      // An HTTP upstream that forgot our session: the next use opens a new one.
      if (outcome.outcome === "not_sent" && /no longer knows the session/.test(outcome.reason))
        void this.#drop(live, "forgot the session (HTTP 404)");
      return this.#redacted(outcome, live.secrets);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops it for good (shutdown, or removed from the file). */
  async close(): Promise<void> {
    this.#state = "stopped";
    const live = this.#live ?? (this.#starting ? await this.#starting : null);
    this.#live = null;
    if (live && typeof live !== "string") {
      live.closed ??= "was stopped";
      await live.client.close();
    }
  }

  async #readyWithin(timeoutMs: number): Promise<Live | string> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`Upstream "${this.name}" did not start within ${timeoutMs} ms; the call was not sent.`),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.#ready(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Null when a call may be sent now (connected, starting, or its restart is due); else the sentence why it cannot,
   * so the gateway can refuse a call before it records anything.
   */
  unavailable(): string | null {
    if (this.#live || this.#starting) return null;
    if (this.#state === "stopped") return `Upstream "${this.name}" is stopped.`;
    const wait = this.#retryAt - this.settings.now();
    if (wait <= 0) return null;
    return (
      `Upstream "${this.name}" is ${this.#state === "failed" ? "failing to start" : "restarting"} ` +
      `(${this.#lastError ?? "no reason given"}); the next try is in ${Math.ceil(wait / 1000)} s.`
    );
  }

  /** The live connection, started now if it may be; else the sentence why not. */
  #ready(): Promise<Live | string> {
    if (this.#live) return Promise.resolve(this.#live);
    if (this.#starting) return this.#starting;
    const why = this.unavailable();
    if (why !== null) return Promise.resolve(why);
    this.#starting = this.#start().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  async #start(): Promise<Live | string> {
    if (this.#state !== "restarting") this.#state = "starting";
    const opened = openTransport(this.name, this.config, this.settings);
    if (!opened.opened) return this.#failed(opened.reason, []);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const live: Live = {
      client,
      secrets: opened.secrets,
      startedAt: this.settings.now(),
      closed: null,
      lastStderr: opened.lastStderr,
    };
    client.onclose = () => this.#closed(live);
    client.onerror = (error) => this.settings.log(`opledger: upstream ${this.name}: ${this.#clean(error, live)}`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.#live === live) void this.#listTools(live);
    });
    try {
      await client.connect(opened.transport, { timeout: this.settings.startTimeoutMs });
    } catch (error) {
      live.closed ??= "failed to start";
      await client.close().catch(() => undefined);
      const words = live.lastStderr();
      return this.#failed(
        `Upstream "${this.name}" did not start: ${this.#clean(error, live)}${words ? ` (its last words: "${words}")` : ""}.`,
        live.secrets,
      );
    }
    // close() may have run while it started.
    if (this.#isStopped()) {
      live.closed = "was stopped";
      await client.close();
      return `Upstream "${this.name}" is stopped.`;
    }
    this.#live = live;
    this.#state = "ready";
    this.#lastError = null;
    return live;
  }

  #isStopped(): boolean {
    return this.#state === "stopped";
  }

  #failed(reason: string, secrets: string[]): string {
    const sentence = secrets.reduce((text, secret) => redact(text, secret), reason);
    if (this.#isStopped()) return sentence;
    this.#state = "failed";
    this.#lastError = sentence;
    this.#setTools(null);
    this.#scheduleRetry();
    return sentence;
  }

  /** The connection ended: by us (stopped), or by the upstream (it exited, or its transport broke). */
  #closed(live: Live): void {
    const words = live.lastStderr();
    live.closed ??= `exited${words ? ` (its last words: "${words}")` : ""}`;
    if (this.#live !== live) return;
    this.#live = null;
    if (this.#state === "stopped") return;
    this.#state = "restarting";
    this.#lastError = `Upstream "${this.name}" ${live.closed}.`;
    if (this.settings.now() - live.startedAt >= this.settings.stableAfterMs) this.#failures = 0;
    this.#scheduleRetry();
    this.settings.log(`opledger: ${this.#lastError} It is started again on its next use.`);
  }

  async #drop(live: Live, why: string): Promise<void> {
    live.closed ??= why;
    await live.client.close();
  }

  #scheduleRetry(): void {
    this.#failures += 1;
    this.#retryAt =
      this.settings.now() + backoffDelay(this.#failures, this.settings.restartBackoff, this.settings.random);
  }

  #listTools(live: Live): Promise<void> {
    this.#listing ??= this.#fetchTools(live).finally(() => {
      this.#listing = null;
    });
    return this.#listing;
  }

  async #fetchTools(live: Live): Promise<void> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const result = await live.client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.settings.startTimeoutMs,
        });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
    } catch (error) {
      this.#lastError = `Upstream "${this.name}" did not list its tools: ${this.#clean(error, live)}.`;
      this.settings.log(`opledger: ${this.#lastError}`);
      return;
    }
    if (this.#live !== live) return;
    this.#setTools(this.#named(tools));
  }

  /** Tools whose gateway name no client would accept are left out, each with one line saying so. */
  #named(tools: Tool[]): UpstreamTool[] {
    const named: UpstreamTool[] = [];
    for (const tool of tools) {
      const gatewayName = gatewayToolName(this.name, tool.name);
      if (GATEWAY_TOOL_NAME.test(gatewayName)) named.push({ upstream: this.name, gatewayName, tool });
      else
        this.settings.log(
          `opledger: upstream ${this.name}: the tool "${tool.name}" is left out: its gateway name ` +
            `"${gatewayName}" must be 1 to 128 letters, digits, "_" or "-".`,
        );
    }
    return named;
  }

  #setTools(tools: UpstreamTool[] | null): void {
    const changed = JSON.stringify(tools) !== JSON.stringify(this.#tools);
    this.#tools = tools;
    this.#toolsFetchedAt = tools === null ? null : new Date(this.settings.now());
    if (changed) this.settings.onToolsChanged(this.name);
  }

  #clean(error: unknown, live: Live): string {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
    return live.secrets.reduce((text, secret) => redact(text, secret), message);
  }

  #redacted(outcome: UpstreamCall, secrets: string[]): UpstreamCall {
    if (outcome.outcome === "not_sent" || outcome.outcome === "no_answer")
      return { ...outcome, reason: secrets.reduce((text, secret) => redact(text, secret), outcome.reason) };
    return outcome;
  }
}
