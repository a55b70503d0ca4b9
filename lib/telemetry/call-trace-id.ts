// The trace id an operation or an attempt records (Operation.traceId, Attempt.traceId): the caller's.
import type { CallerTrace } from "./caller-trace";

export function callTraceId(caller: CallerTrace | undefined): string | null {
  return caller ? caller.traceId : null;
}
