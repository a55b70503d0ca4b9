// Small pieces every operations table shares: the id link, the tool (marked when called through the MCP gateway), the
// effect class, attempts, run/agent and the last error.
import Link from "next/link";
import type { ClassifiedError, EffectClass } from "@/lib/retry-gate/types";
import { MonoId } from "@/components/ui/mono-id";

export function operationHref(id: string): string {
  return `/operations/${encodeURIComponent(id)}`;
}

export function OperationLink({ id }: { id: string }) {
  return (
    <Link
      href={operationHref(id)}
      className="rounded-sm text-ink underline decoration-line-strong underline-offset-4 hover:decoration-ink"
      data-operation-id={id}
    >
      <MonoId value={id} maxChars={14} label="Operation" />
    </Link>
  );
}

/** A call that came through the MCP gateway, marked in words: a colour here would read as a phase. */
export function ViaMark({ via }: { via: string | null }) {
  if (via !== "mcp") return null;
  return (
    <span
      className={
        "shrink-0 self-center rounded-sm px-1 font-mono text-[10px] leading-4 font-semibold tracking-wide " +
        "text-ink-muted ring-1 ring-line-strong"
      }
      title="Called through the MCP gateway (/mcp)"
      data-via="mcp"
    >
      MCP<span className="sr-only"> (called through the MCP gateway)</span>
    </span>
  );
}

/**
 * A tool name can be long: it is cut at a fixed width with the whole name on hover, and the contract version beside it.
 */
export function ToolName({ tool, version, via }: { tool: string; version: number; via: string | null }) {
  return (
    <span className="flex max-w-[15rem] items-baseline gap-1" title={`${tool}, contract version ${version}`}>
      <span className="truncate font-mono text-[12.5px] text-ink">{tool}</span>
      <span className="shrink-0 font-mono text-[11px] text-ink-subtle">v{version}</span>
      <ViaMark via={via} />
    </span>
  );
}

/** The class is words, not a colour: colours belong to phases and decisions. */
export function EffectClassText({ effect }: { effect: EffectClass }) {
  return (
    <span className="font-mono text-[11.5px] tracking-tight whitespace-nowrap text-ink-muted" data-effect={effect}>
      {effect}
    </span>
  );
}

export function AttemptCount({ attempt, maxAttempts }: { attempt: number; maxAttempts: number }) {
  const over = attempt > maxAttempts;
  return (
    <span
      className={`font-mono text-[12.5px] whitespace-nowrap tabular-nums ${over ? "text-phase-failed-ink" : "text-ink"}`}
      title={
        `${attempt} attempt${attempt === 1 ? "" : "s"} dispatched of a budget of ${maxAttempts}` +
        (over ? " (beyond the budget, by approval)" : "")
      }
    >
      {attempt}/{maxAttempts}
    </span>
  );
}

export function RunAgent({ runId, agentId }: { runId: string | null; agentId: string | null }) {
  if (!runId && !agentId) return <span className="text-ink-subtle">—</span>;
  return (
    <span className="flex flex-col leading-tight">
      {runId ? <MonoId value={runId} maxChars={12} label="Run" className="text-ink" /> : null}
      {agentId ? (
        <MonoId value={agentId} maxChars={12} label="Agent" className="text-[11.5px] text-ink-subtle" />
      ) : null}
    </span>
  );
}

/** "server_error · HTTP 503 · upstream timed out" */
export function describeLastError(error: ClassifiedError): string {
  return [error.kind, error.httpStatus === undefined ? null : `HTTP ${error.httpStatus}`, error.message ?? null]
    .filter((part): part is string => Boolean(part))
    .join(" · ");
}

export function LastError({ error }: { error: ClassifiedError | null }) {
  if (!error) return <span className="text-ink-subtle">none recorded</span>;
  const text = describeLastError(error);
  return (
    <span className="line-clamp-2 text-ink" title={text}>
      <span className="font-mono text-[12px] text-phase-failed-ink">{error.kind}</span>
      {error.httpStatus === undefined ? null : (
        <span className="font-mono text-[12px] text-ink-muted"> · HTTP {error.httpStatus}</span>
      )}
      {error.message ? <span className="text-ink-muted"> · {error.message}</span> : null}
    </span>
  );
}
