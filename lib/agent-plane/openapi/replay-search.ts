// The OpenAPI paths and schemas of replay and search (docs/operators.md#send-a-call-again-with-corrected-arguments,
// issue #18 "Find anything"), as plain objects for lib/agent-plane/openapi.ts to merge: `paths` into its paths, `schemas` into
// components.schemas, `searchParameter` into GET /api/v1/operations' parameters (its 200 answers SearchPage when `q`
// is given), and `operationFields` / `operationDetailFields` into the Operation and OperationDetail schemas' properties.
import { MAX_REPLAY_ARGS_BYTES } from "@/lib/ledger/commands/replay";
import { MAX_SEARCH_LENGTH, SEARCH_MATCHES } from "@/lib/ledger/reads/search";
import { problem, ref, shared } from "./parts";

export const paths = {
  "/api/v1/operations/{id}/replay": {
    post: {
      operationId: "replayOperation",
      tags: ["operations"],
      summary: "Replay an operation that is over as a new operation, with edited arguments (a key bound to a person)",
      description:
        "Plans a NEW operation: a new idempotency key, `replayOf` the original, the tool's current contract, the " +
        "original's runId and agentId, owned by the key that planned the original (so that agent's workers claim " +
        "and run it: they find it with GET /api/v1/operations?phase=PLANNED). `args` defaults to the original's. " +
        "Only a confirmed, failed, rejected, expired or reconciled-as-applied operation may be replayed, and not " +
        "while an earlier replay of it may still run. A replay of a NON_RETRYABLE tool is the human gate: it waits " +
        "in AWAITING_APPROVAL for a second person (the replaying person may not approve it). Both operations get an " +
        "audit record (`operation.replayed` on the original). An agent key gets 403 `person_required` on its own " +
        "operation and 404 on another key's; nothing is written on any refusal.",
      security: [{ apiKey: ["operator"] }, { apiKey: ["agent"] }],
      parameters: [{ $ref: "#/components/parameters/OperationId" }],
      requestBody: { required: true, content: { "application/json": { schema: ref("ReplayInput") } } },
      responses: {
        "201": {
          description: "The replay: a new operation (PLANNED, or AWAITING_APPROVAL for a NON_RETRYABLE tool).",
          headers: { Location: { schema: { type: "string" }, description: "/api/v1/operations/{the new id}" } },
          content: { "application/json": { schema: ref("Operation") } },
        },
        "400": shared("InvalidBody"),
        "401": shared("Unauthorized"),
        "403": problem(
          "Replaying is a person's decision: an agent key or the bootstrap key is refused; or the key lacks the scope.",
          ["person_required", "forbidden"],
        ),
        "404": shared("NotFound"),
        "409": problem(
          "The operation is still live (it may still run), or an earlier replay of it may still run; `operationId` " +
            "names that replay.",
          ["not_replayable", "replay_pending", "write_conflict"],
        ),
        "413": shared("PayloadTooLarge"),
        "422": problem(
          `The arguments are not a JSON object (or larger than ${MAX_REPLAY_ARGS_BYTES} bytes), or the tool has no contract any more.`,
          ["invalid_args", "no_contract"],
        ),
        "500": shared("InternalError"),
        "503": shared("DatabaseBusy"),
      },
    },
  },
};

/** GET /api/v1/operations?q=: find anything (alone: with a filter it is a 400). */
export const searchParameter = {
  name: "q",
  in: "query",
  required: false,
  description:
    "Find the operations this text names: exactly an operation id, an idempotency key, a provider id, a run id, or " +
    "a string or number value anywhere in the arguments (values up to 200 characters are indexed). Exact and " +
    "case-sensitive, newest first, keyset-paged with `cursor` and `limit`; the answer is a SearchPage. An agent key " +
    "finds only its own operations. Not combined with the other filters.",
  schema: { type: "string", minLength: 1, maxLength: MAX_SEARCH_LENGTH },
};

/** Added to the Operation schema's properties. */
export const operationFields = {
  replayOf: {
    type: ["string", "null"],
    description: "A replay with edited arguments: the operation it replays (POST .../replay).",
  },
};

/** Added to the OperationDetail schema's properties. */
export const operationDetailFields = {
  replays: {
    type: "array",
    items: { type: "string" },
    description: "The replays of this operation (new operations whose replayOf is this one), oldest first.",
  },
};

export const schemas = {
  ReplayInput: {
    type: "object",
    additionalProperties: false,
    required: ["reason"],
    properties: {
      args: {
        type: "object",
        description: "The edited arguments, a JSON object; the original's when absent.",
      },
      reason: { type: "string", minLength: 1, maxLength: 2000, description: "Recorded with the person's name." },
    },
  },
  SearchPage: {
    type: "object",
    required: ["items", "nextCursor", "operationId"],
    properties: {
      items: {
        type: "array",
        items: {
          allOf: [
            ref("Operation"),
            {
              type: "object",
              required: ["matched"],
              properties: {
                matched: {
                  type: "array",
                  items: { type: "string", enum: [...SEARCH_MATCHES] },
                  description: "Where the text was found on this operation.",
                },
              },
            },
          ],
        },
      },
      nextCursor: { type: ["string", "null"] },
      operationId: {
        type: ["string", "null"],
        description: "The text is exactly this operation's id (the console opens its page).",
      },
    },
  },
};
