"use client";
// The contract editor: every rule of a tool contract with help in the operator's words; the server's schema judges it and its messages appear next to each field.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState, useTransition, type FormEvent, type ReactNode } from "react";
import { saveContract } from "@/lib/actions/contract-actions";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { bodyOf, draftOf, formErrors, NEW_CONTRACT_DRAFT, type ContractDraft } from "./contract-draft";
import { EFFECT_CHOICES, humanDuration, KEY_POLICY_CHOICES, RECONCILE_CHOICES, type Choice } from "./contract-words";
import { FieldErrors, FieldHint, inputClass, linkClass, Notice } from "@/components/ui/form-controls";
import { buttonClass } from "@/components/ui/button-styles";
import { useHydrated } from "@/components/ui/use-hydrated";

export interface ContractFormProps {
  mode: "create" | "edit";
  /** The version being edited; null when creating. */
  initial: ContractView | null;
  /** Dependency names already known, offered as suggestions. */
  knownDependencies: string[];
}

interface Failure {
  code: string;
  message: string;
  errors: Record<string, string[]>;
}

const UNREACHABLE: Failure = {
  code: "unreachable",
  message:
    "The console server could not be reached, so this may not have been saved. Open the contract in another tab to check before saving again.",
  errors: {},
};

export function ContractForm({ mode, initial, knownDependencies }: ContractFormProps) {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const [draft, setDraft] = useState<ContractDraft>(() => (initial ? draftOf(initial) : NEW_CONTRACT_DRAFT));
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, startTransition] = useTransition();
  // A submit before hydration would be the browser's own; typing would be merged by the first render. Both wait.
  const hydrated = useHydrated();
  const dependencyListId = useId();

  const errors = failure?.errors ?? {};
  const set = <K extends keyof ContractDraft>(key: K, value: ContractDraft[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const tool = mode === "edit" && initial ? initial.tool : draft.tool.trim();

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
          body: bodyOf(draft, mode === "edit" ? initial?.version : undefined),
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
        {mode === "edit" && initial ? (
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
          <FailureNotice failure={failure} fieldCount={fieldCount} tool={tool} baseVersion={initial?.version} />
        ) : null}
      </div>

      <Section title="Tool" hint="The name agents dispatch; it cannot be changed after the contract is created.">
        {mode === "create" ? (
          <TextField
            name="tool"
            label="Tool name"
            hint="Exactly as agents call it, e.g. payments.charge or email.send."
            value={draft.tool}
            onChange={(v) => set("tool", v)}
            errors={errors.tool}
            mono
          />
        ) : (
          <p className="font-mono text-[13px] text-ink">{initial?.tool}</p>
        )}
      </Section>

      <Section
        title="Side effect"
        hint="What repeating a call can do. The class is never guessed from the tool's name."
      >
        <RadioCards
          name="effect"
          legend="Side-effect class"
          choices={EFFECT_CHOICES}
          value={draft.effect}
          onChange={(v) => set("effect", v)}
          errors={errors.effect}
          mono
        />
        <RadioCards
          name="idempotencyKey"
          legend="Idempotency key"
          choices={KEY_POLICY_CHOICES}
          value={draft.idempotencyKey}
          onChange={(v) => set("idempotencyKey", v)}
          errors={errors.idempotencyKey}
          compact
        />
        <div className="grid gap-4 md:grid-cols-2">
          <TextField
            name="keyRetentionMs"
            label="Key retention (ms)"
            hint="How long the provider remembers a key (Stripe: 86400000, 24 h). After it, a retry with the same key is no longer safe and the gate asks for a reconciliation. Leave empty if keys never expire."
            value={draft.keyRetentionMs}
            onChange={(v) => set("keyRetentionMs", v)}
            errors={errors.keyRetentionMs}
            numeric
            suffix={durationSuffix(draft.keyRetentionMs)}
          />
        </div>
      </Section>

      <Section
        title="Retries"
        hint="The budget of attempts and the wait between them; the gate applies them per operation."
      >
        <div className="grid gap-4 md:grid-cols-3">
          <TextField
            name="maxAttempts"
            label="Max attempts"
            hint="Attempts an operation may spend, the first included (1–100). When spent, a person decides."
            value={draft.maxAttempts}
            onChange={(v) => set("maxAttempts", v)}
            errors={errors.maxAttempts}
            numeric
          />
          <TextField
            name="backoff.baseMs"
            label="Backoff base (ms)"
            hint="The first wait before a retry; it doubles each attempt, with random jitter."
            value={draft.backoffBaseMs}
            onChange={(v) => set("backoffBaseMs", v)}
            errors={errors["backoff.baseMs"] ?? errors.backoff}
            numeric
            suffix={durationSuffix(draft.backoffBaseMs)}
          />
          <TextField
            name="backoff.maxMs"
            label="Backoff max (ms)"
            hint="The longest wait between attempts, at least the base."
            value={draft.backoffMaxMs}
            onChange={(v) => set("backoffMaxMs", v)}
            errors={errors["backoff.maxMs"]}
            numeric
            suffix={durationSuffix(draft.backoffMaxMs)}
          />
        </div>
        <RadioCards
          name="approval"
          legend="Approval"
          choices={[
            {
              value: "not_required",
              label: "When the rules ask",
              help: "A person is asked only when the class or the budget says so (NON_RETRYABLE retries, spent budgets).",
            },
            {
              value: "required",
              label: "Every attempt",
              help: "A person approves every attempt, the first one included, whatever the class says.",
            },
          ]}
          value={draft.approval}
          onChange={(v) => set("approval", v)}
          errors={errors.approval}
          compact
        />
      </Section>

      <Section title="Reconciliation" hint="How someone proves whether a call whose outcome was lost took effect.">
        <RadioCards
          name="reconcile.method"
          legend="Reconcile method"
          choices={RECONCILE_CHOICES}
          value={draft.reconcileMethod}
          onChange={(v) => set("reconcileMethod", v)}
          errors={errors["reconcile.method"] ?? errors.reconcile}
          compact
        />
        {draft.reconcileMethod === "lookup" ? (
          <div className="grid gap-4 rounded-md border border-line bg-surface-muted p-3 md:grid-cols-2">
            <div className="md:col-span-2">
              <TextField
                name="reconcile.urlTemplate"
                label="Lookup URL template"
                hint="An HTTP GET on the provider; {idempotencyKey} and {providerId} are filled in, e.g. https://api.stripe.com/v1/charges/search?query=metadata['key']:'{idempotencyKey}'."
                value={draft.urlTemplate}
                onChange={(v) => set("urlTemplate", v)}
                errors={errors["reconcile.urlTemplate"]}
                mono
              />
            </div>
            <TextField
              name="reconcile.authHeaderEnv"
              label="Auth header variable"
              hint="The name of the server's environment variable that holds the Authorization header, e.g. STRIPE_LOOKUP_AUTH. The secret itself is never stored here."
              value={draft.authHeaderEnv}
              onChange={(v) => set("authHeaderEnv", v)}
              errors={errors["reconcile.authHeaderEnv"]}
              mono
            />
            <TextField
              name="reconcile.timeoutMs"
              label="Lookup timeout (ms)"
              hint="How long to wait for the provider's answer (100–60000)."
              value={draft.timeoutMs}
              onChange={(v) => set("timeoutMs", v)}
              errors={errors["reconcile.timeoutMs"]}
              numeric
              suffix={durationSuffix(draft.timeoutMs)}
            />
            <TextField
              name="reconcile.providerIdField"
              label="Provider id field"
              hint="Where the answer holds the provider's id for the effect, e.g. data.0.id."
              value={draft.providerIdField}
              onChange={(v) => set("providerIdField", v)}
              errors={errors["reconcile.providerIdField"]}
              mono
            />
            <TextField
              name="reconcile.statusField"
              label="Status field"
              hint="Where the answer says whether the effect happened, e.g. data.0.status."
              value={draft.statusField}
              onChange={(v) => set("statusField", v)}
              errors={errors["reconcile.statusField"]}
              mono
            />
            <TextField
              name="reconcile.appliedValues"
              label="Values that mean applied"
              hint="Comma-separated status values that prove the effect happened, e.g. succeeded, pending."
              value={draft.appliedValues}
              onChange={(v) => set("appliedValues", v)}
              errors={errors["reconcile.appliedValues"]}
              mono
            />
            <CheckboxField
              name="reconcile.auto"
              label="Let the recovery sweep run this lookup by itself"
              hint="For REPLAYABLE tools: a lost outcome is looked up without waiting for a person. Others still need a person."
              checked={draft.auto}
              onChange={(v) => set("auto", v)}
              errors={errors["reconcile.auto"]}
            />
          </div>
        ) : null}
      </Section>

      <Section
        title="Dependency and description"
        hint="Which provider the tool calls, for its circuit breaker, and a note for the next person."
      >
        <div className="grid gap-4 md:grid-cols-2">
          <TextField
            name="dependency"
            label="Dependency"
            hint="The provider this tool calls, e.g. stripe. Tools naming the same dependency share one circuit breaker; empty for none."
            value={draft.dependency}
            onChange={(v) => set("dependency", v)}
            errors={errors.dependency}
            mono
            list={dependencyListId}
          />
          <datalist id={dependencyListId}>
            {knownDependencies.map((d) => (
              <option key={d} value={d} />
            ))}
          </datalist>
          <TextAreaField
            name="description"
            label="Description"
            hint="What the tool does and anything an on-call engineer should know (up to 2000 characters)."
            value={draft.description}
            onChange={(v) => set("description", v)}
            errors={errors.description}
          />
        </div>
      </Section>

      <div className="sticky bottom-0 -mx-1 flex flex-wrap items-center gap-3 border-t border-line bg-surface px-1 py-3">
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending
            ? "Saving…"
            : mode === "edit" && initial
              ? `Save as version ${initial.version + 1}`
              : "Create contract"}
        </button>
        <Link
          href={mode === "edit" && initial ? `/contracts/${encodeURIComponent(initial.tool)}` : "/contracts"}
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

function durationSuffix(value: string): string | undefined {
  const n = Number(value.trim());
  return value.trim() !== "" && Number.isInteger(n) && n >= 1000 ? `= ${humanDuration(n)}` : undefined;
}

function FailureNotice({
  failure,
  fieldCount,
  tool,
  baseVersion,
}: {
  failure: Failure;
  fieldCount: number;
  tool: string;
  baseVersion: number | undefined;
}) {
  const toolPath = `/contracts/${encodeURIComponent(tool)}`;
  switch (failure.code) {
    case "contract_conflict":
      return (
        <Notice tone="warning" title="Not saved: this contract changed while you were editing it" alert>
          <p>{failure.message}</p>
          {baseVersion !== undefined ? (
            <p className="mt-1.5 flex flex-wrap gap-x-4 gap-y-1">
              <a href={`${toolPath}?from=${baseVersion}`} target="_blank" rel="noopener" className={linkClass}>
                See what changed since version {baseVersion} (new tab)
              </a>
              <a href={`${toolPath}/edit`} className={linkClass}>
                Reload the form with the latest version (your changes here are discarded)
              </a>
            </p>
          ) : (
            <p className="mt-1.5">
              <Link href={toolPath} className={linkClass}>
                Open the existing contract
              </Link>
            </p>
          )}
        </Notice>
      );
    case "invalid_input":
      return (
        <Notice tone="error" title="Nothing was saved" alert>
          {fieldCount > 0
            ? `${fieldCount} ${fieldCount === 1 ? "field needs" : "fields need"} attention; the messages are next to ${fieldCount === 1 ? "it" : "them"}.`
            : failure.message}
          {failure.errors[""] ? <span> {failure.errors[""].join(" ")}</span> : null}
        </Notice>
      );
    case "unauthenticated":
      return (
        <Notice tone="error" title="Your session has ended; nothing was saved" alert>
          <Link
            href={`/signin?callbackUrl=${encodeURIComponent(`${toolPath}${baseVersion !== undefined ? "/edit" : ""}`)}`}
            className={linkClass}
          >
            Sign in again
          </Link>{" "}
          in another tab, then save again.
        </Notice>
      );
    case "forbidden":
      return (
        <Notice tone="error" title="Your role cannot change contracts; nothing was saved" alert>
          {failure.message} Ask an admin to make this change.
        </Notice>
      );
    default:
      return (
        <Notice tone="error" title="Nothing was saved" alert>
          {failure.message}
        </Notice>
      );
  }
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

interface TextFieldProps {
  name: string;
  label: string;
  hint: ReactNode;
  value: string;
  onChange: (value: string) => void;
  errors: string[] | undefined;
  mono?: boolean;
  numeric?: boolean;
  suffix?: string | undefined;
  list?: string;
}

function TextField({
  name,
  label,
  hint,
  value,
  onChange,
  errors,
  mono = false,
  numeric = false,
  suffix,
  list,
}: TextFieldProps) {
  const id = useId();
  const invalid = Boolean(errors && errors.length > 0);
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="font-medium text-ink">
        {label}
      </label>
      <div className="flex items-center gap-2">
        <input
          id={id}
          name={name}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          inputMode={numeric ? "numeric" : undefined}
          autoComplete="off"
          spellCheck={false}
          list={list}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-hint${invalid ? ` ${id}-error` : ""}`}
          className={inputClass(
            invalid,
            `min-w-0 flex-1 ${mono ? "font-mono text-[12.5px]" : ""} ${numeric ? "tabular-nums" : ""}`,
          )}
        />
        {suffix ? <span className="shrink-0 text-xs text-ink-subtle tabular-nums">{suffix}</span> : null}
      </div>
      <FieldErrors id={`${id}-error`} errors={errors} />
      <FieldHint id={`${id}-hint`}>{hint}</FieldHint>
    </div>
  );
}

function TextAreaField({
  name,
  label,
  hint,
  value,
  onChange,
  errors,
}: Omit<TextFieldProps, "mono" | "numeric" | "suffix" | "list">) {
  const id = useId();
  const invalid = Boolean(errors && errors.length > 0);
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="font-medium text-ink">
        {label}
      </label>
      <textarea
        id={id}
        name={name}
        rows={3}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid || undefined}
        aria-describedby={`${id}-hint${invalid ? ` ${id}-error` : ""}`}
        className={inputClass(invalid)}
      />
      <FieldErrors id={`${id}-error`} errors={errors} />
      <FieldHint id={`${id}-hint`}>{hint}</FieldHint>
    </div>
  );
}

function CheckboxField({
  name,
  label,
  hint,
  checked,
  onChange,
  errors,
}: {
  name: string;
  label: string;
  hint: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  errors: string[] | undefined;
}) {
  const id = useId();
  const invalid = Boolean(errors && errors.length > 0);
  return (
    <div className="flex flex-col gap-1 md:col-span-2">
      <div className="flex items-start gap-2">
        <input
          id={id}
          name={name}
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-hint${invalid ? ` ${id}-error` : ""}`}
          className="mt-0.5 size-4 accent-ink"
        />
        <label htmlFor={id} className="font-medium text-ink">
          {label}
        </label>
      </div>
      <FieldErrors id={`${id}-error`} errors={errors} />
      <FieldHint id={`${id}-hint`}>{hint}</FieldHint>
    </div>
  );
}

function RadioCards<T extends string>({
  name,
  legend,
  choices,
  value,
  onChange,
  errors,
  mono = false,
  compact = false,
}: {
  name: string;
  legend: string;
  choices: Choice<T>[];
  value: T;
  onChange: (value: T) => void;
  errors: string[] | undefined;
  mono?: boolean;
  compact?: boolean;
}) {
  const id = useId();
  const invalid = Boolean(errors && errors.length > 0);
  return (
    <fieldset
      role="radiogroup"
      aria-describedby={invalid ? `${id}-error` : undefined}
      aria-invalid={invalid || undefined}
      className="min-w-0"
    >
      <legend className="mb-1 font-medium text-ink">{legend}</legend>
      <div
        className={`grid gap-1.5 ${compact ? (choices.length === 2 ? "sm:grid-cols-2" : "sm:grid-cols-3") : "sm:grid-cols-2 xl:grid-cols-3"}`}
      >
        {choices.map((choice) => {
          const checked = choice.value === value;
          return (
            <label
              key={choice.value}
              className={`flex cursor-pointer items-start gap-2 rounded-md px-2.5 py-1.5 ring-1 ring-inset ${
                checked
                  ? "bg-surface-muted ring-ink/60"
                  : invalid
                    ? "ring-phase-failed/60"
                    : "ring-line hover:bg-surface-muted"
              }`}
            >
              <input
                type="radio"
                name={name}
                value={choice.value}
                checked={checked}
                onChange={() => onChange(choice.value)}
                aria-describedby={`${id}-${choice.value}-help`}
                className="mt-0.5 size-3.5 shrink-0 accent-ink"
              />
              <span className="min-w-0">
                <span className={`font-medium text-ink ${mono ? "font-mono text-[12.5px]" : ""}`}>{choice.label}</span>
                {/* Hidden from the name (it would repeat), read as the radio's description instead. */}
                <span
                  id={`${id}-${choice.value}-help`}
                  aria-hidden="true"
                  className="block text-xs leading-snug text-ink-muted"
                >
                  {choice.help}
                </span>
              </span>
            </label>
          );
        })}
      </div>
      <div className="mt-1">
        <FieldErrors id={`${id}-error`} errors={errors} />
      </div>
    </fieldset>
  );
}
