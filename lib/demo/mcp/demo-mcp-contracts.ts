// The contracts of the demo desk's tools as the gateway lists them (`desk__<tool>`), in the shape of
// `PUT /api/v1/contracts/{tool}`: one per behaviour the gateway must show, and one in observe mode.
import type { ContractBody } from "@/lib/ledger/contracts/contract-schema";
import { DEMO_UPSTREAM_NAME } from "./demo-upstreams";

const tool = (name: string): string => `${DEMO_UPSTREAM_NAME}__${name}`;

export function demoMcpContracts(): Record<string, ContractBody> {
  return {
    [tool("create_ticket")]: {
      effect: "NON_RETRYABLE",
      idempotencyKey: "unsupported",
      // Every fifth ticket times out after it was created: the operation turns UNKNOWN and a person looks it up.
      reconcile: { method: "manual" },
      approval: "not_required",
      maxAttempts: 1,
      backoff: { baseMs: 1000, maxMs: 1000 },
      dependency: "support-desk",
      description: "Open a support ticket. The desk has no idempotency keys: a second call opens a second ticket.",
      timeoutMs: 3000,
      // One ticket per customer and subject, across runs: asking again is answered from the ledger.
      keyFrom: "ticket:{customer}:{subject}",
      toolError: "fatal",
      mode: "enforce",
    },
    [tool("find_customer")]: {
      effect: "PURE",
      idempotencyKey: "optional",
      reconcile: null,
      approval: "not_required",
      maxAttempts: 3,
      backoff: { baseMs: 100, maxMs: 1000 },
      description: "Find a customer by email. Reads only; a slow answer is retried by the gateway.",
      timeoutMs: 2000,
      keyFrom: "args",
      toolError: "transient",
      mode: "enforce",
    },
    [tool("add_note")]: {
      effect: "UNKNOWN",
      idempotencyKey: "unsupported",
      reconcile: { method: "manual" },
      approval: "not_required",
      maxAttempts: 2,
      backoff: { baseMs: 500, maxMs: 2000 },
      dependency: "support-desk",
      description: "Add an internal note to a ticket. Observed only, while the team learns how notes fail.",
      timeoutMs: 5000,
      keyFrom: "args",
      toolError: "transient",
      mode: "observe",
    },
    [tool("close_ticket")]: {
      effect: "IDEMPOTENT",
      idempotencyKey: "optional",
      reconcile: null,
      approval: "not_required",
      maxAttempts: 3,
      backoff: { baseMs: 200, maxMs: 2000 },
      dependency: "support-desk",
      description: "Close a ticket. Closing twice changes nothing; an error may come after the ticket was closed.",
      timeoutMs: 5000,
      keyFrom: "close:{ticket}",
      toolError: "unknown",
      mode: "enforce",
    },
  };
}
