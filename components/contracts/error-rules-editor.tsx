"use client";
// The contract form's error rules: an ordered list to edit, starter sets from providers' documentation to add, and a
// tester that shows what an error would mean under the rules as typed.
import { useId, useState } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import { FieldErrors, inputClass, linkClass } from "@/components/ui/form-controls";
import { STARTER_RULE_SETS } from "@/lib/ledger/contracts/starter-rules";
import { ERROR_RULE_MEANINGS, type EffectClass, type ToolErrorMeaning } from "@/lib/retry-gate/types";
import { NEW_RULE_DRAFT, ruleDraftOf, type ErrorRuleDraft } from "./error-rule-draft";
import { ErrorRuleTester } from "./error-rule-tester";

export interface ErrorRulesEditorProps {
  rules: ErrorRuleDraft[];
  onChange: (rules: ErrorRuleDraft[]) => void;
  /** The server's messages by form name ("errorRules.0.when.message"). */
  errors: Record<string, string[]>;
  tool: string;
  effect: EffectClass;
  toolError: ToolErrorMeaning;
}

const MEANING_HELP: Record<(typeof ERROR_RULE_MEANINGS)[number], string> = {
  transient: "transient: retried under the class's rules",
  fatal: "fatal: never retried",
  unknown: "unknown: the effect may have happened (reconcile)",
  rate_limited: "rate_limited: retried after Retry-After",
};

/** A rule's conditions, each a text box. */
const WHEN_BOXES = [
  { key: "message", label: "message pattern", placeholder: "message pattern (RE2), e.g. in progress", numeric: false },
  { key: "status", label: "status", placeholder: "409 or 500-599", numeric: true },
  { key: "kind", label: "kind", placeholder: "kind, e.g. tool_error", numeric: false },
] as const;

/** The messages under one rule's name, each prefixed with the part of the rule it is about. */
function ruleErrors(errors: Record<string, string[]>, index: number): string[] {
  const prefix = `errorRules.${index}`;
  return Object.entries(errors).flatMap(([key, messages]) => {
    if (key !== prefix && !key.startsWith(`${prefix}.`)) return [];
    const part = key.slice(prefix.length + 1).replace(/^when\./, "");
    return messages.map((m) => (part === "" ? m : `${part}: ${m}`));
  });
}

export function ErrorRulesEditor({ rules, onChange, errors, tool, effect, toolError }: ErrorRulesEditorProps) {
  const id = useId();
  const [starter, setStarter] = useState(STARTER_RULE_SETS[0]?.id ?? "");
  const [added, setAdded] = useState<string | null>(null);
  const chosen = STARTER_RULE_SETS.find((s) => s.id === starter);

  const update = (index: number, patch: Partial<ErrorRuleDraft>) =>
    onChange(rules.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...rules];
    const [rule] = next.splice(index, 1);
    if (rule) next.splice(index + by, 0, rule);
    onChange(next);
  };

  return (
    <div className="flex flex-col gap-3">
      <FieldErrors id={`${id}-list-error`} errors={errors.errorRules} />
      {rules.length === 0 ? (
        <p className="text-ink-subtle">No rules: every error is classified by the global table.</p>
      ) : (
        <ol aria-label="Error rules" className="flex flex-col gap-2">
          {rules.map((rule, index) => {
            const messages = ruleErrors(errors, index);
            const invalid = messages.length > 0;
            const label = (what: string) => `Rule ${index + 1} ${what}`;
            // Each box of a rule the server refused is marked, so the form takes the keyboard to the first of them.
            const control = {
              "aria-invalid": invalid || undefined,
              "aria-describedby": invalid ? `${id}-${index}-error` : undefined,
            };
            return (
              <li
                key={index}
                className={`rounded-md p-2.5 ring-1 ring-inset ${invalid ? "ring-phase-failed/60" : "ring-line"}`}
              >
                <div className="grid gap-2 md:grid-cols-[5.5rem_1fr_7rem_1.2fr_auto]">
                  <span className="self-center text-xs font-medium text-ink-muted">Rule {index + 1}: when</span>
                  {WHEN_BOXES.map((box) => (
                    <input
                      key={box.key}
                      {...control}
                      aria-label={label(box.label)}
                      value={rule[box.key]}
                      onChange={(e) => update(index, { [box.key]: e.target.value })}
                      placeholder={box.placeholder}
                      inputMode={box.numeric ? "numeric" : undefined}
                      spellCheck={false}
                      autoComplete="off"
                      className={inputClass(
                        invalid,
                        `w-full min-w-0 ${box.numeric ? "tabular-nums" : "font-mono text-[12.5px]"}`,
                      )}
                    />
                  ))}
                  <div className="flex gap-1">
                    {[
                      { name: "up", text: "↑", disabled: index === 0, act: () => move(index, -1) },
                      { name: "down", text: "↓", disabled: index === rules.length - 1, act: () => move(index, 1) },
                      {
                        name: "remove",
                        text: "✕",
                        disabled: false,
                        act: () => onChange(rules.filter((_, i) => i !== index)),
                      },
                    ].map((b) => (
                      <button
                        key={b.name}
                        type="button"
                        aria-label={
                          b.name === "remove" ? `Remove rule ${index + 1}` : `Move rule ${index + 1} ${b.name}`
                        }
                        disabled={b.disabled}
                        onClick={b.act}
                        className={buttonClass("quiet", "sm")}
                      >
                        {b.text}
                      </button>
                    ))}
                  </div>
                  <span className="self-center text-xs font-medium text-ink-muted">then</span>
                  <select
                    aria-label={label("meaning")}
                    value={rule.then}
                    onChange={(e) => update(index, { then: e.target.value as ErrorRuleDraft["then"] })}
                    className={inputClass(false, "w-full min-w-0")}
                  >
                    {ERROR_RULE_MEANINGS.map((m) => (
                      <option key={m} value={m}>
                        {MEANING_HELP[m]}
                      </option>
                    ))}
                  </select>
                  <input
                    {...control}
                    aria-label={label("why")}
                    value={rule.why}
                    onChange={(e) => update(index, { why: e.target.value })}
                    placeholder="why, in words (the gate's reason quotes it)"
                    autoComplete="off"
                    className={inputClass(invalid, "w-full min-w-0 md:col-span-3")}
                  />
                </div>
                <FieldErrors id={`${id}-${index}-error`} errors={messages} className="mt-1.5" />
              </li>
            );
          })}
        </ol>
      )}

      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          onClick={() => onChange([...rules, { ...NEW_RULE_DRAFT }])}
          className={buttonClass("secondary", "sm")}
        >
          Add rule
        </button>
        <span className="text-xs text-ink-subtle">or start from a provider&apos;s documented errors:</span>
        <select
          aria-label="Starter rules"
          value={starter}
          onChange={(e) => setStarter(e.target.value)}
          className={inputClass(false, "py-1 text-xs")}
        >
          {STARTER_RULE_SETS.map((s) => (
            <option key={s.id} value={s.id}>
              {s.provider}
            </option>
          ))}
        </select>
        <button
          type="button"
          disabled={!chosen}
          onClick={() => {
            if (!chosen) return;
            onChange([...rules, ...chosen.rules.map(ruleDraftOf)]);
            setAdded(chosen.provider);
          }}
          className={buttonClass("secondary", "sm")}
        >
          Add these rules
        </button>
      </div>
      {chosen ? (
        <p className="text-xs text-ink-subtle">
          Written from {chosen.provider}&apos;s documentation:{" "}
          {chosen.sources.map((s, i) => (
            <span key={s}>
              {i > 0 ? ", " : ""}
              <a href={s} target="_blank" rel="noreferrer" className={linkClass}>
                {s.replace(/^https:\/\//, "")}
              </a>
            </span>
          ))}
          . Check them against how you call it.
        </p>
      ) : null}
      <p aria-live="polite" className="text-xs font-medium text-ink">
        {added ? `${added}'s rules were added to the form; nothing changes until you save the contract.` : ""}
      </p>

      <ErrorRuleTester rules={rules} tool={tool} effect={effect} toolError={toolError} />
    </div>
  );
}
