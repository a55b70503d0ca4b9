"use client";
// The audit page's filter bar: a GET form, so the filters live in the URL (and work before any script has loaded); with
// scripts, empty fields stay out of the URL.
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { FormEvent, ReactNode } from "react";
import { inputClass } from "@/components/ui/form-controls";
import { buttonClass } from "@/components/ui/button-styles";
import type { AuditSubject } from "@/lib/ledger/audit/append";
import { auditHref, hasFilters, SINCE_PRESETS, type AuditSearch } from "@/lib/console/audit-search";

const SUBJECT_LABEL: Record<AuditSubject, string> = {
  operation: "Operation",
  contract: "Contract",
  dependency: "Dependency",
  user: "User",
  api_key: "API key",
  webhook: "Webhook",
  bulk: "Bulk action",
  run: "Run",
};

function Labelled({ label, htmlFor, children }: { label: string; htmlFor: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={htmlFor} className="text-xs font-medium text-ink-muted">
        {label}
      </label>
      {children}
    </div>
  );
}

function text(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export interface AuditFiltersProps {
  search: AuditSearch;
  subjects: readonly AuditSubject[];
  /** Suggestions for the action field. */
  actions: readonly string[];
}

export function AuditFilters({ search, subjects, actions }: AuditFiltersProps) {
  const router = useRouter();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const subjectType = text(form, "subjectType");
    router.push(
      auditHref({
        subjectType: subjects.find((s) => s === subjectType),
        subjectId: text(form, "subjectId"),
        actorId: text(form, "actorId"),
        action: text(form, "action"),
        since: text(form, "since"),
        limit: search.limit,
      }),
    );
  }

  return (
    <form
      method="get"
      action="/audit"
      onSubmit={submit}
      role="search"
      aria-label="Filter the audit log"
      className="mb-4 flex flex-wrap items-end gap-3"
    >
      {search.limit !== undefined ? <input type="hidden" name="limit" value={search.limit} /> : null}
      <Labelled label="Subject type" htmlFor="audit-subject-type">
        <select
          id="audit-subject-type"
          name="subjectType"
          defaultValue={search.subjectType ?? ""}
          className={inputClass(false, "h-8 py-0")}
        >
          <option value="">Any</option>
          {subjects.map((s) => (
            <option key={s} value={s}>
              {SUBJECT_LABEL[s]}
            </option>
          ))}
        </select>
      </Labelled>
      <Labelled label="Subject id" htmlFor="audit-subject-id">
        <input
          id="audit-subject-id"
          name="subjectId"
          defaultValue={search.subjectId ?? ""}
          placeholder="operation id, tool…"
          spellCheck={false}
          autoComplete="off"
          className={inputClass(false, "h-8 w-48 py-0 font-mono text-[12.5px]")}
        />
      </Labelled>
      <Labelled label="Actor" htmlFor="audit-actor">
        <input
          id="audit-actor"
          name="actorId"
          defaultValue={search.actorId ?? ""}
          placeholder="click a name below, or an id"
          title={
            "A user id, an API key id, or system. Clicking a name in the table fills it in; records from before " +
            "ids were kept are found by the email or key name they show."
          }
          spellCheck={false}
          autoComplete="off"
          className={inputClass(false, "h-8 w-48 py-0")}
        />
      </Labelled>
      <Labelled label="Action" htmlFor="audit-action">
        <input
          id="audit-action"
          name="action"
          list="audit-actions"
          defaultValue={search.action ?? ""}
          placeholder="e.g. contract.* or operation.approved"
          spellCheck={false}
          autoComplete="off"
          className={inputClass(false, "h-8 w-52 py-0 font-mono text-[12.5px]")}
        />
        <datalist id="audit-actions">
          {actions.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </Labelled>
      <Labelled label="Since" htmlFor="audit-since">
        <input
          id="audit-since"
          name="since"
          list="audit-since-presets"
          defaultValue={search.since ?? ""}
          placeholder="1h, 24h, 7d or UTC time"
          spellCheck={false}
          autoComplete="off"
          aria-describedby="audit-since-hint"
          className={inputClass(false, "h-8 w-40 py-0")}
        />
        <datalist id="audit-since-presets">
          {SINCE_PRESETS.map((p) => (
            <option key={p.value} value={p.value} label={p.label} />
          ))}
        </datalist>
        <span id="audit-since-hint" className="sr-only">
          A relative time such as 15m, 1h, 24h or 7d, or a UTC time such as 2026-11-30T12:00.
        </span>
      </Labelled>
      <div className="flex gap-2">
        <button type="submit" className={buttonClass("primary")}>
          Apply filters
        </button>
        {hasFilters(search) ? (
          <Link href="/audit" className={buttonClass("secondary")}>
            Clear
          </Link>
        ) : null}
      </div>
    </form>
  );
}
