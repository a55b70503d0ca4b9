"use client";
// The contract editor: every rule of a tool contract with help in the operator's words; the server's schema judges it
// and its messages appear next to each field.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Fragment, useEffect, useId, useRef, useState, useTransition, type FormEvent, type ReactNode } from "react";
import { saveContract } from "@/lib/console/actions/contract-actions";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { buttonClass } from "@/components/ui/button-styles";
import { useHydrated } from "@/components/ui/use-hydrated";
import { ClassSuggestionNote, type ClassSuggestion } from "./class-suggestion";
import { bodyOf, draftOf, formErrors, NEW_CONTRACT_DRAFT, type ContractDraft } from "./contract-draft";
import { ContractFieldView } from "./contract-field";
import type { GroupLayout } from "./contract-field-types";
import { CONTRACT_SECTIONS } from "./contract-fields";
import { SaveFailureNotice, type SaveFailure } from "./contract-save-failure";
import { ErrorRulesEditor } from "./error-rules-editor";

export interface ContractFormProps {
  mode: "create" | "edit";
  /** The version being edited; null when creating. */
  initial: ContractView | null;
  /** Dependency names already known, offered as suggestions. */
  knownDependencies: string[];
  /** Creating from an upstream tool's hints ("Classify"): the prefilled draft, and the class they suggest. */
  classified?: { draft: ContractDraft; suggestion: ClassSuggestion };
}

const UNREACHABLE: SaveFailure = {
  code: "unreachable",
  message:
    "The console server could not be reached, so this may not have been saved. Open the contract in another tab " +
    "to check before saving again.",
  errors: {},
};

const GROUP_LAYOUT: Record<Exclude<GroupLayout, "stack">, string> = {
  two: "grid gap-4 md:grid-cols-2",
  three: "grid gap-4 md:grid-cols-3",
  lookup: "grid gap-4 rounded-md border border-line bg-surface-muted p-3 md:grid-cols-2",
};

export function ContractForm({ mode, initial, knownDependencies, classified }: ContractFormProps) {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const [draft, setDraft] = useState<ContractDraft>(() =>
    initial ? draftOf(initial) : (classified?.draft ?? NEW_CONTRACT_DRAFT),
  );
  const [failure, setFailure] = useState<SaveFailure | null>(null);
  const [pending, startTransition] = useTransition();
  // A submit before hydration would be the browser's own; typing would be merged by the first render. Both wait.
  const hydrated = useHydrated();
  const dependencyListId = useId();

  const errors = failure?.errors ?? {};
  const set = (key: keyof ContractDraft, value: string | boolean) => setDraft((d) => ({ ...d, [key]: value }));
  const editing = mode === "edit" && initial !== null;
  const tool = editing ? initial.tool : draft.tool.trim();

  // After a refusal, take the keyboard to the first field that needs attention, or to the message.
  useEffect(() => {
    if (!failure) return;
    const invalid = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    // A radio group is not focusable itself; its chosen radio is.
    const target =
      invalid instanceof HTMLFieldSetElement ? invalid.querySelector<HTMLElement>("input:checked, input") : invalid;
    (target ?? alertRef.current)?.focus();
  }, [failure]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFailure(null);
    startTransition(async () => {
      let result: Awaited<ReturnType<typeof saveContract>>;
      try {
        result = await saveContract({
          tool,
          mode,
          body: bodyOf(draft, editing ? initial.version : undefined),
        });
      } catch {
        setFailure(UNREACHABLE);
        return;
      }
      if (!result.ok) {
        setFailure({ code: result.code, message: result.message, errors: formErrors(result.errors) });
        return;
      }
      const { contract, changed } = result.data;
      router.push(
        `/contracts/${encodeURIComponent(contract.tool)}?${changed ? `saved=${contract.version}` : "unchanged=1"}`,
      );
    });
  }

  const fieldCount = Object.keys(errors).filter((k) => k !== "").length;

  return (
    <form
      ref={formRef}
      method="post"
      onSubmit={submit}
      noValidate
      aria-describedby="contract-form-intro"
      className="flex max-w-5xl flex-col gap-6"
    >
      {/* Before hydration a field typed into would be overwritten or merged by React's first render: it waits too. */}
      <fieldset disabled={!hydrated} className="contents">
        <p id="contract-form-intro" className="text-ink-muted">
          {editing ? (
            <>
              You are editing version <span className="font-medium text-ink">{initial.version}</span>. Saving creates
              version {initial.version + 1}; if someone else saves first, your save is refused rather than written over
              theirs.
            </>
          ) : (
            "Every field is checked by the same rules as the agent API; problems are shown next to the field."
          )}
        </p>

        <div ref={alertRef} tabIndex={-1} className="focus:outline-none">
          {failure ? (
            <SaveFailureNotice failure={failure} fieldCount={fieldCount} tool={tool} baseVersion={initial?.version} />
          ) : null}
        </div>

        {CONTRACT_SECTIONS.map((section) => (
          <Section key={section.title} title={section.title} hint={section.hint}>
            {section.groups.map((group, index) => {
              if (group.shownWhen && !group.shownWhen(draft)) return null;
              const fields = group.fields.map((field) => (
                <ContractFieldView
                  key={field.name}
                  field={field}
                  draft={draft}
                  onChange={set}
                  errors={errors}
                  editing={editing}
                  dependencyListId={dependencyListId}
                  aside={
                    field.name === "effect" && classified ? (
                      <ClassSuggestionNote suggestion={classified.suggestion} />
                    ) : undefined
                  }
                />
              ));
              return group.layout === "stack" ? (
                <Fragment key={index}>{fields}</Fragment>
              ) : (
                <div key={index} className={GROUP_LAYOUT[group.layout]}>
                  {fields}
                </div>
              );
            })}
          </Section>
        ))}
        <Section
          title="Error rules"
          hint={
            "Which errors of this tool are worth another try, read in order before the global table; the first " +
            "rule that matches decides, and the gate's reason names it."
          }
        >
          <ErrorRulesEditor
            rules={draft.errorRules}
            onChange={(errorRules) => setDraft((d) => ({ ...d, errorRules }))}
            errors={errors}
            tool={tool}
            effect={draft.effect}
            toolError={draft.toolError}
          />
        </Section>
        <datalist id={dependencyListId}>
          {knownDependencies.map((d) => (
            <option key={d} value={d} />
          ))}
        </datalist>

        <div className="sticky bottom-0 -mx-1 flex flex-wrap items-center gap-3 border-t border-line bg-surface px-1 py-3">
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? "Saving…" : editing ? `Save as version ${initial.version + 1}` : "Create contract"}
          </button>
          <Link
            href={editing ? `/contracts/${encodeURIComponent(initial.tool)}` : "/contracts"}
            className={buttonClass("secondary")}
          >
            Cancel
          </Link>
          <span aria-live="polite" className="text-xs text-ink-subtle">
            {pending ? "Saving the contract…" : ""}
          </span>
        </div>
      </fieldset>
    </form>
  );
}

function Section({ title, hint, children }: { title: string; hint: string; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="grid gap-3 border-t border-line pt-4 lg:grid-cols-[14rem_1fr] lg:gap-6">
      <div>
        <h2 id={id} className="font-semibold text-ink">
          {title}
        </h2>
        <p className="mt-0.5 text-xs leading-snug text-ink-subtle">{hint}</p>
      </div>
      <div className="flex min-w-0 flex-col gap-4">{children}</div>
    </section>
  );
}
