// The span of one API command (plan, claim, dispatch, outcome, reconcile, approve, reject, ...): the operation, its
// tool and effect class, the attempt, the phase before and after, and the gate's decision and reason
// (docs/observability.md). Put around a command by the one wrapper every command runs in (operationCommand, planWith),
// never inside a command's body.
import type { Span } from "@opentelemetry/api";
import type { ContractVersion, Operation } from "@/lib/platform/generated/prisma/client";
import type { Decision } from "@/lib/retry-gate/types";
import { GEN_AI, LEDGER } from "@/lib/platform/telemetry/attributes";
import { inSpan } from "@/lib/platform/telemetry/spans";
import { traceOf, type Actor } from "../actor";
import { LedgerError } from "../errors";

/** Runs a command inside its span, in the caller's trace (or the span around it: the gateway's execute_tool). */
export function commandSpan<T>(command: string, actor: Actor, work: (span: Span) => Promise<T>): Promise<T> {
  return inSpan(`opledger ${command}`, { caller: traceOf(actor) }, async (span) => {
    if (span.isRecording()) span.setAttribute(LEDGER.command, command);
    try {
      const result = await work(span);
      if (span.isRecording()) span.setAttributes(outcomeAttributes(result));
      return result;
    } catch (error) {
      if (span.isRecording() && error instanceof LedgerError) span.setAttributes(refusalAttributes(error));
      throw error;
    }
  });
}

/** The operation as the command found it (read in the command's transaction). */
export function spanOperationBefore(span: Span, op: Operation): void {
  if (!span.isRecording()) return;
  span.setAttributes({
    [LEDGER.operationId]: op.id,
    [LEDGER.tool]: op.tool,
    [LEDGER.effect]: op.effect,
    [LEDGER.phaseBefore]: op.phase,
    [LEDGER.attempt]: op.attempt,
  });
}

/** The call's arguments (canonical JSON), only when its contract opts in with traceArguments. */
export function spanArguments(span: Span, contract: ContractVersion, argsJson: string): void {
  if (contract.traceArguments && span.isRecording()) span.setAttribute(GEN_AI.toolCallArguments, argsJson);
}

type Attributes = Record<string, string | number>;

function decisionAttributes(decision: Decision | undefined): Attributes {
  return decision ? { [LEDGER.decision]: decision.action, [LEDGER.decisionReason]: decision.reason } : {};
}

function refusalAttributes(error: LedgerError): Attributes {
  return { [LEDGER.refusal]: error.code, ...decisionAttributes(error.extra.decision) };
}

interface Answered {
  id: string;
  tool: string;
  effect: string;
  phase: string;
  attempt: number;
  decision?: Decision;
}

const isAnswered = (value: unknown): value is Answered =>
  typeof value === "object" && value !== null && "phase" in value && "attempt" in value && "id" in value;

/**
 * What a command answered, as span attributes: the operation after it (its phase, attempt and the gate's decision
 * now), or the refusal a dispatch answers with. Commands answer an operation view, a plan's { operation }, a dispatch's
 * { operation } or { refused }, planWith { created } or { replayed }; one that answers nothing (deliver) adds nothing.
 */
export function outcomeAttributes(result: unknown): Attributes {
  if (typeof result !== "object" || result === null) return {};
  // planWith's answer: a new operation (with whatever the plan was composed with), or the replayed plan's.
  if ("created" in result && typeof result.created === "object") return outcomeAttributes(result.created);
  if ("replayed" in result) return outcomeAttributes(result.replayed);
  if ("refused" in result && result.refused instanceof LedgerError) return refusalAttributes(result.refused);
  const op = "operation" in result ? result.operation : result;
  if (!isAnswered(op)) return {};
  return {
    [LEDGER.operationId]: op.id,
    [LEDGER.tool]: op.tool,
    [LEDGER.effect]: op.effect,
    [LEDGER.phaseAfter]: op.phase,
    [LEDGER.attempt]: op.attempt,
    ...decisionAttributes(op.decision),
  };
}
