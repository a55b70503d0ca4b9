// When a call's answer was delivered: the response that carries it finished (its body was written out in full, not
// merely started), recorded in the ledger so that every instance treats the same call made again as a new one
// (lib/ledger/commands/repeated-call.ts). A client gone before that never got the answer: the same call again is its
// retry, answered from the ledger. A call answered straight after its outcome (the lean tools/call) has the mark written
// with the outcome, and taken back when the response does not finish; any other answer is marked after it finished.
import type { ServerResponse } from "node:http";
import { isJSONRPCNotification, isJSONRPCRequest, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { KeyActor } from "@/lib/platform/auth/api-keys";
import { clearDelivery, recordDelivery } from "@/lib/ledger/commands/repeated-call";
import type { Ledger } from "@/lib/ledger/ledger";

/** Answers that tell the client what the call did: besides its result, these refusals. */
const OUTCOME_CODES: ReadonlySet<unknown> = new Set(["failed", "result_not_kept"]);

/** The operation whose outcome an answer tells (its result, or its failure); null for any other answer. */
export function outcomeAnswered(answer: CallToolResult): string | null {
  const meta = answer._meta;
  const operation = meta?.["opledger/operation"];
  if (typeof operation !== "string" || meta?.["opledger/mode"] === "observe") return null;
  return !answer.isError || OUTCOME_CODES.has(meta?.["opledger/code"]) ? operation : null;
}

/**
 * Deliveries being written by this instance, by operation: the same call made again here at once waits for the mark
 * rather than read the ledger before it lands (another instance reads what has been written).
 */
const recording = new Map<string, Promise<void>>();

export function deliveryBeingRecorded(operationId: string): Promise<void> | undefined {
  return recording.get(operationId);
}

/** How long a cancellation is remembered: far longer than any call's deadline (10 min at most). */
const CANCELLATION_MS = 15 * 60_000;
/** Requests their client cancelled (`notifications/cancelled`), by run and request id, with when to forget them. */
const cancelled = new Map<string, number>();
const cancellation = (run: string, requestId: unknown): string => `${run}\n${JSON.stringify(requestId)}`;

/**
 * A client that gives up on a call (the SDK's abort) sends `notifications/cancelled` and ignores the answer when it
 * comes (the MCP specification's rule), on a connection it may keep open: that answer is not delivered. Noticed on
 * the instance the cancellation reaches.
 */
export function noteCancellations(run: string, messages: readonly unknown[], now: number): void {
  for (const [key, until] of cancelled) if (until <= now) cancelled.delete(key);
  for (const message of messages) {
    if (!isJSONRPCNotification(message) || message.method !== "notifications/cancelled") continue;
    const requestId = message.params?.requestId;
    if (requestId !== undefined) cancelled.set(cancellation(run, requestId), now + CANCELLATION_MS);
  }
}

/** Whether the client cancelled any of these requests (then the answers they get are not delivered). */
function anyCancelled(run: string, messages: readonly unknown[]): boolean {
  return messages.some((m) => isJSONRPCRequest(m) && cancelled.has(cancellation(run, m.id)));
}

/** Marks this instance is taking back (clearDelivery), by call key: the same call made again here waits for them. */
const clearing = new Map<string, Promise<void>>();

export function deliveryBeingCleared(callKey: string): Promise<void> | undefined {
  return clearing.get(callKey);
}

/** The answers one response carries, and how each one's delivery is recorded. */
export class ResponseDeliveries {
  /** Operations whose outcome the response tells: marked delivered once it finished, unless marked already. */
  readonly carried = new Set<string>();
  /** Operations whose outcome's own write marked them delivered, by operation, with their call key. */
  readonly marked = new Map<string, string>();

  constructor(
    readonly run: string,
    readonly messages: readonly unknown[],
    /** The response one call's answer goes into right after its outcome (the lean tools/call), or null. */
    readonly answering: ServerResponse | null,
  ) {}

  /**
   * Whether the call's outcome may carry its delivery mark (repeated-call.ts deliveredWith): its answer goes straight
   * into a response whose client is still there and has not cancelled the request.
   */
  markWithOutcome(): boolean {
    return this.answering !== null && !this.answering.destroyed && !anyCancelled(this.run, this.messages);
  }
}

type LedgerCtx = { ledger: Ledger; actor: KeyActor; log: (line: string) => void };

function logged(ctx: LedgerCtx, what: string, id: string) {
  return (error: unknown) => {
    ctx.log(`opledger mcp: ${what} ${id} was not recorded: ${error instanceof Error ? error.message : String(error)}`);
  };
}

/** Tracked in `map` under `key` until it settles, so the same call made again here can wait for it. */
function tracked(map: Map<string, Promise<void>>, key: string, write: Promise<void>): void {
  const settled = write.finally(() => {
    if (map.get(key) === settled) map.delete(key);
  });
  map.set(key, settled);
}

/**
 * Once the response ended (called before it is written), records what its client got: when it was written out in full
 * (Node's 'finish': the last byte handed to the operating system) and the client did not cancel the request meanwhile,
 * the answers it carries are delivered (the marks still missing are written); otherwise the marks the outcomes carried
 * are taken back.
 */
export function settleDeliveries(res: ServerResponse, deliveries: ResponseDeliveries, ctx: LedgerCtx): void {
  if (deliveries.carried.size === 0 && deliveries.marked.size === 0) return;
  let settled = false;
  const settle = (finished: boolean): void => {
    if (settled) return;
    settled = true;
    const now = new Date();
    if (finished && !anyCancelled(deliveries.run, deliveries.messages)) {
      for (const id of deliveries.carried) {
        if (deliveries.marked.has(id)) continue;
        tracked(
          recording,
          id,
          recordDelivery(ctx.ledger, id, ctx.actor, now).catch(logged(ctx, "the delivery of", id)),
        );
      }
      return;
    }
    for (const [id, callKey] of deliveries.marked) {
      tracked(
        clearing,
        callKey,
        clearDelivery(ctx.ledger, id, ctx.actor, now).catch(logged(ctx, "the undelivered answer of", id)),
      );
    }
  };
  if (res.destroyed) return settle(false);
  res.once("finish", () => settle(true));
  res.once("close", () => settle(res.writableFinished));
}
