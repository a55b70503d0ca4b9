// When a call's answer was delivered: the response that carries it finished (its body was written out in full, not
// merely started), recorded in the ledger so that every instance treats the same call made again as a new one
// (lib/ledger/commands/repeated-call.ts). A client gone before that never got the answer: the same call again is its
// retry, answered from the ledger.
import { isJSONRPCNotification, isJSONRPCRequest, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { KeyActor } from "@/lib/auth/api-keys";
import { recordDelivery } from "@/lib/ledger/commands/repeated-call";
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

/**
 * The response, passed on unchanged, with `onFinished` called once its body has been read to the end (by the server
 * writing it to the client): never when the client went away first, which cancels the body or leaves it unread.
 */
function whenFinished(response: Response, signal: AbortSignal, onFinished: () => void): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) {
        controller.enqueue(value);
        return;
      }
      controller.close();
      if (!signal.aborted) onFinished();
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Records, once the response finished, that the answers it carries for `operations` were delivered: unless the client
 * cancelled the request (`messages`, in `run`) meanwhile.
 */
export function recordingDeliveries(
  response: Response,
  signal: AbortSignal,
  request: { run: string; messages: readonly unknown[]; operations: ReadonlySet<string> },
  ctx: { ledger: Ledger; actor: KeyActor; log: (line: string) => void },
): Response {
  if (request.operations.size === 0) return response;
  return whenFinished(response, signal, () => {
    if (anyCancelled(request.run, request.messages)) return;
    for (const id of request.operations) {
      const written = recordDelivery(ctx.ledger, id, ctx.actor, new Date())
        .catch((error: unknown) => {
          ctx.log(
            `opledger mcp: the delivery of ${id} was not recorded: ${error instanceof Error ? error.message : String(error)}`,
          );
        })
        .finally(() => {
          if (recording.get(id) === written) recording.delete(id);
        });
      recording.set(id, written);
    }
  });
}
