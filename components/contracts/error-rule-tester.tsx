"use client";
// The error rules' tester: paste a status and a body (or an MCP tool's error text) and read what the ledger would make
// of it under the rules as typed, with the same code the outcome command runs (lib/retry-gate/error-rules.ts).
import { useId, useState } from "react";
import { inputClass } from "@/components/ui/form-controls";
import { describeError } from "@/lib/retry-gate/decide";
import { judgeReport } from "@/lib/retry-gate/error-rules";
import type { EffectClass, ReportedError, ToolErrorMeaning } from "@/lib/retry-gate/types";
import { ruleOf, type ErrorRuleDraft } from "./error-rule-draft";

export interface ErrorRuleTesterProps {
  rules: ErrorRuleDraft[];
  tool: string;
  effect: EffectClass;
  toolError: ToolErrorMeaning;
}

function reportedOf(status: string, kind: string, message: string): ReportedError | null {
  const trimmed = status.trim();
  const httpStatus = /^\d{3}$/.test(trimmed) ? Number(trimmed) : undefined;
  if (httpStatus === undefined && kind.trim() === "" && message === "") return null;
  return {
    ...(httpStatus !== undefined ? { httpStatus } : {}),
    ...(kind.trim() !== "" ? { kind: kind.trim() } : {}),
    ...(message !== "" ? { message } : {}),
  };
}

export function ErrorRuleTester({ rules, tool, effect, toolError }: ErrorRuleTesterProps) {
  const id = useId();
  const [status, setStatus] = useState("");
  const [kind, setKind] = useState("");
  const [message, setMessage] = useState("");
  const reported = reportedOf(status, kind, message);
  const judged = reported
    ? judgeReport("failed", reported, { tool: tool || "this tool", effect, toolError, errorRules: rules.map(ruleOf) })
    : null;

  return (
    <section aria-labelledby={`${id}-title`} className="rounded-md border border-line bg-surface-muted p-3">
      <h3 id={`${id}-title`} className="font-medium text-ink">
        Try an error
      </h3>
      <p className="text-xs text-ink-subtle">
        What a failed attempt with this answer would mean under the rules above, before you save them.
      </p>
      <div className="mt-2 grid gap-2 md:grid-cols-[7rem_10rem_1fr]">
        <input
          aria-label="Test status"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
          placeholder="status, e.g. 409"
          inputMode="numeric"
          autoComplete="off"
          className={inputClass(false, "w-full min-w-0 tabular-nums")}
        />
        <input
          aria-label="Test kind"
          value={kind}
          onChange={(e) => setKind(e.target.value)}
          placeholder="kind (optional)"
          spellCheck={false}
          autoComplete="off"
          className={inputClass(false, "w-full min-w-0 font-mono text-[12.5px]")}
        />
        <textarea
          aria-label="Test body or message"
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          placeholder="the response body, or the tool's error text"
          rows={2}
          spellCheck={false}
          className={inputClass(false, "w-full min-w-0 font-mono text-[12.5px]")}
        />
      </div>
      <p role="status" aria-label="Test result" className="mt-2 text-ink">
        {judged === null || judged.error === null ? (
          <span className="text-ink-subtle">Enter a status, a kind or a body to see its class.</span>
        ) : (
          <>
            <span className="font-medium">
              {judged.result === "unknown" ? "Outcome UNKNOWN" : `Class ${judged.error.errorClass}`}
            </span>
            {": "}
            {judged.error.rule === undefined
              ? `no rule matches, so the global table decides: ${describeError(judged.error)}.`
              : `${describeError(judged.error)}.`}
          </>
        )}
      </p>
    </section>
  );
}
