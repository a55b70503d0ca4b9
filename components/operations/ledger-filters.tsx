"use client";
// The ledger's filter bar: phase, effect class and age apply at once; tool, run and agent apply on Enter or "Apply".
import type { FormEvent } from "react";
import { EFFECT_CLASSES, PHASES } from "@/lib/retry-gate/types";
import { phaseLabel } from "./phase-badge";
import { AGE_CHOICES, hasFilters, type LedgerFilter } from "@/lib/console/ledger-search";

export interface LedgerFiltersProps {
  filter: LedgerFilter;
  onChange: (filter: LedgerFilter) => void;
}

const label = "mb-1 block text-[11px] font-semibold tracking-wide text-ink-subtle uppercase";
const control =
  "h-8 rounded-md border border-line-strong bg-surface px-2 text-[13px] text-ink shadow-xs " +
  "focus-visible:outline-2 focus-visible:outline-focus";

function textValue(data: FormData, name: string): string | undefined {
  const value = data.get(name);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export function LedgerFilters({ filter, onChange }: LedgerFiltersProps) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    onChange({
      ...filter,
      tool: textValue(data, "tool"),
      runId: textValue(data, "runId"),
      agentId: textValue(data, "agentId"),
    });
  }

  return (
    // Remounted when the URL changes (back button, "Clear"), so the text boxes show what is applied.
    <form
      key={JSON.stringify(filter)}
      role="search"
      aria-label="Filter operations"
      onSubmit={submit}
      className="mb-3 flex flex-wrap items-end gap-x-3 gap-y-2"
    >
      <div>
        <label htmlFor="filter-phase" className={label}>
          Phase
        </label>
        <select
          id="filter-phase"
          className={control}
          value={filter.phase ?? ""}
          onChange={(e) => onChange({ ...filter, phase: (e.target.value || undefined) as LedgerFilter["phase"] })}
        >
          <option value="">All phases</option>
          {PHASES.map((phase) => (
            <option key={phase} value={phase}>
              {phaseLabel(phase)}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="filter-effect" className={label}>
          Effect class
        </label>
        <select
          id="filter-effect"
          className={control}
          value={filter.effect ?? ""}
          onChange={(e) => onChange({ ...filter, effect: (e.target.value || undefined) as LedgerFilter["effect"] })}
        >
          <option value="">All classes</option>
          {EFFECT_CLASSES.map((effect) => (
            <option key={effect} value={effect}>
              {effect}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="filter-age" className={label}>
          Created
        </label>
        <select
          id="filter-age"
          className={control}
          value={filter.age ?? ""}
          onChange={(e) => onChange({ ...filter, age: e.target.value || undefined })}
        >
          <option value="">Any time</option>
          {AGE_CHOICES.map((age) => (
            <option key={age.value} value={age.value}>
              over {age.label} ago
            </option>
          ))}
          {filter.age && !AGE_CHOICES.some((a) => a.value === filter.age) ? (
            <option value={filter.age}>over {filter.age} ago</option>
          ) : null}
        </select>
      </div>
      <div>
        <label htmlFor="filter-tool" className={label}>
          Tool
        </label>
        <input
          id="filter-tool"
          name="tool"
          defaultValue={filter.tool ?? ""}
          placeholder="exact name"
          className={`${control} w-40 font-mono`}
        />
      </div>
      <div>
        <label htmlFor="filter-run" className={label}>
          Run id
        </label>
        <input
          id="filter-run"
          name="runId"
          defaultValue={filter.runId ?? ""}
          placeholder="exact id"
          className={`${control} w-32 font-mono`}
        />
      </div>
      <div>
        <label htmlFor="filter-agent" className={label}>
          Agent id
        </label>
        <input
          id="filter-agent"
          name="agentId"
          defaultValue={filter.agentId ?? ""}
          placeholder="exact id"
          className={`${control} w-32 font-mono`}
        />
      </div>
      <button type="submit" className="h-8 rounded-md bg-ink px-3 font-medium text-surface hover:bg-ink/85">
        Apply
      </button>
      {hasFilters(filter) ? (
        <button
          type="button"
          onClick={() => onChange({})}
          className="h-8 rounded-md px-3 font-medium text-ink ring-1 ring-line-strong hover:bg-surface-muted"
        >
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
