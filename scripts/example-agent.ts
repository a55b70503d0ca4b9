// An example agent: sends one (fake, local) "email.send" through opledger with runTool and prints where it ended.
//
// Run:  OPLEDGER_API_KEY=... npx tsx scripts/example-agent.ts
//       (OPLEDGER_URL defaults to http://127.0.0.1:3000; the key needs the `agent` scope.)
//
// The tool needs a contract first (an admin key, once):
//   curl -X PUT "$OPLEDGER_URL/api/v1/contracts/email.send" -H "Authorization: Bearer $ADMIN_KEY" \
//     -H 'content-type: application/json' -d '{"effect":"IDEMPOTENT","idempotencyKey":"optional",
//     "reconcile":null,"approval":"not_required","maxAttempts":3,"backoff":{"baseMs":500,"maxMs":10000}}'
//
// Any language can do what runTool does; with curl (Python's `requests` is the same five calls):
//   1. plan, before anything leaves; keep the id and idempotencyKey it returns:
//        curl -X POST "$OPLEDGER_URL/api/v1/operations" -H "Authorization: Bearer $OPLEDGER_API_KEY" \
//          -H 'content-type: application/json' -d '{"tool":"email.send","args":{"to":"ada@example.com"}}'
//   2. take the lease; keep the fence:
//        curl -X POST "$OPLEDGER_URL/api/v1/operations/$ID/claim" ... -d '{"workerId":"py-1","leaseMs":30000}'
//   3. ask the gate; a 200 means "send now", a 409 problem names why not (`code`) and what next (`decision`):
//        curl -X POST "$OPLEDGER_URL/api/v1/operations/$ID/dispatch" ... -d '{"fence":1}'
//   4. call the provider with the operation's idempotencyKey (for example an Idempotency-Key header);
//      while it runs, extend the lease every leaseMs/3 and stop if the answer is 409 stale_fence:
//        curl -X POST "$OPLEDGER_URL/api/v1/operations/$ID/heartbeat" ... -d '{"fence":1,"leaseMs":30000}'
//   5. report: "confirmed", "failed" only for a definite error answer, "unknown" for a timeout or a lost response:
// curl -X POST "$OPLEDGER_URL/api/v1/operations/$ID/outcome" ... -d
// '{"fence":1,"result":"confirmed","providerId":"msg_1"}'
//      then follow the returned `decision`: RETRY / RETRY_SAME_KEY -> wait retryAfterMs and go to step 3;
//      STOP -> done; RECONCILE / APPROVAL -> a person takes over in the console.
import { ApiProblem, runTool, type CallProvider } from "../lib/executor";

const baseUrl = process.env.OPLEDGER_URL ?? "http://127.0.0.1:3000";
const apiKey = process.env.OPLEDGER_API_KEY;
if (!apiKey) {
  console.error("OPLEDGER_API_KEY is not set: create an API key with the agent scope in the console and export it.");
  process.exit(2);
}

// The "provider": a local stand-in for an email API. It honours the idempotency key the way a real one would,
// so a retry of the same operation cannot send twice.
const sent = new Map<string, string>();
const sendEmail: CallProvider = ({ idempotencyKey, attempt, signal }) => {
  signal.throwIfAborted();
  const existing = sent.get(idempotencyKey);
  if (existing) return Promise.resolve({ ok: true, providerId: existing, value: { deduplicated: true } });
  if (attempt === 1 && process.env.EXAMPLE_FAIL_FIRST === "1") {
    return Promise.resolve({ ok: false, error: { kind: "server_error", httpStatus: 503, message: "try again" } });
  }
  const messageId = `msg_${sent.size + 1}`;
  sent.set(idempotencyKey, messageId);
  return Promise.resolve({ ok: true, providerId: messageId, value: { to: "ada@example.com", messageId } });
};

async function main(): Promise<void> {
  const result = await runTool(
    "email.send",
    { to: "ada@example.com", subject: "Your receipt", body: "Thanks for your order." },
    sendEmail,
    {
      client: { baseUrl, apiKey: apiKey ?? "" },
      // Pass the same key when the agent re-runs a step after a crash: it resumes the operation instead of
      // planning a new one.
      idempotencyKey: process.env.EXAMPLE_IDEMPOTENCY_KEY,
      runId: `example-${Date.now()}`,
      agentId: "example-agent",
    },
  );

  switch (result.status) {
    case "confirmed":
      console.log(`sent: operation ${result.operation.id}, provider id ${result.providerId ?? "(none)"}`);
      break;
    case "rejected":
      console.log(`rejected by a person: ${result.reason}`);
      break;
    case "waiting":
      console.log(`not yet: run again with the same key in ${result.retryAfterMs} ms (${result.decision.reason})`);
      break;
    case "needs_reconcile":
    case "needs_approval":
    case "unavailable":
    case "failed":
    case "approval_expired":
    case "lease_lost":
      console.log(
        `${result.status}: ${result.decision.reason} (operation ${result.operation.id}, ${result.operation.phase})`,
      );
      break;
    default: {
      const unhandled: never = result;
      throw new Error(`unhandled result ${JSON.stringify(unhandled)}`);
    }
  }
  console.log(JSON.stringify(result, null, 2));
}

main().catch((error: unknown) => {
  if (error instanceof ApiProblem && error.code === "no_contract") {
    console.error("email.send has no contract yet: PUT one first (see the comment at the top of this file).");
  } else if (error instanceof ApiProblem) {
    console.error(`${error.status} ${error.code}: ${error.detail}`);
  } else if (error instanceof TypeError) {
    console.error(
      `Cannot reach opledger at ${baseUrl} (${error.cause instanceof Error ? error.cause.message : error.message}). Is it running?`,
    );
  } else {
    console.error(error);
  }
  process.exit(1);
});
