"use client";
// One field of the contract form, drawn from its description: a text box, a text area, a checkbox or a set of radio
// cards.
import { useId, type ReactNode } from "react";
import { FieldErrors, FieldHint, inputClass } from "@/components/ui/form-controls";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import { fieldMessages, type ContractDraft } from "./contract-draft";
import type { ContractField } from "./contract-field-types";
import { humanDuration, type Choice } from "./contract-words";

export interface ContractFieldProps {
  field: ContractField;
  draft: ContractDraft;
  onChange: (key: keyof ContractDraft, value: string | boolean) => void;
  /** The server's messages by form name. */
  errors: Record<string, string[]>;
  editing: boolean;
  /** The id of the list of dependencies already known. */
  dependencyListId: string;
  /** Shown between a set of choices' legend and its choices (the class "Classify" suggests). */
  aside?: ReactNode;
}

export function ContractFieldView({
  field,
  draft,
  onChange,
  errors,
  editing,
  dependencyListId,
  aside,
}: ContractFieldProps) {
  const id = useId();
  const messages = fieldMessages(errors, field);
  const invalid = Boolean(messages && messages.length > 0);
  // What ties a control to its label's field: its id, whether it is wrong, and the messages and help read with it.
  const control = {
    id,
    "aria-invalid": invalid || undefined,
    "aria-describedby": `${id}-hint${invalid ? ` ${id}-error` : ""}`,
  };
  const span = field.wide ? "md:col-span-2" : "";
  switch (field.kind) {
    case "text": {
      const value = draft[field.key];
      if (field.createOnly && editing) return <p className="font-mono text-[13px] text-ink">{value}</p>;
      const suffix = field.duration ? durationSuffix(value) : undefined;
      return (
        <Labelled id={id} label={field.label} help={field.help} errors={messages} className={span}>
          <div className="flex items-center gap-2">
            <input
              {...control}
              name={field.name}
              value={value}
              onChange={(e) => onChange(field.key, e.target.value)}
              inputMode={field.numeric ? "numeric" : undefined}
              autoComplete="off"
              spellCheck={false}
              list={field.suggestDependencies ? dependencyListId : undefined}
              placeholder={field.placeholder}
              className={inputClass(
                invalid,
                `min-w-0 flex-1 ${field.mono ? "font-mono text-[12.5px]" : ""} ${field.numeric ? "tabular-nums" : ""}`,
              )}
            />
            {suffix ? <span className="shrink-0 text-xs text-ink-subtle tabular-nums">{suffix}</span> : null}
          </div>
        </Labelled>
      );
    }
    case "textarea":
      return (
        <Labelled id={id} label={field.label} help={field.help} errors={messages} className={span}>
          <textarea
            {...control}
            name={field.name}
            rows={3}
            value={draft[field.key]}
            onChange={(e) => onChange(field.key, e.target.value)}
            className={inputClass(invalid)}
          />
        </Labelled>
      );
    case "checkbox":
      return (
        <div className={`flex flex-col gap-1 ${span}`}>
          <div className="flex items-start gap-2">
            <input
              {...control}
              name={field.name}
              type="checkbox"
              checked={draft[field.key]}
              onChange={(e) => onChange(field.key, e.target.checked)}
              className="mt-0.5 size-4 accent-ink"
            />
            <label htmlFor={id} className="font-medium text-ink">
              {field.label}
            </label>
          </div>
          <FieldNotes id={id} errors={messages} help={field.help} />
        </div>
      );
    case "choice":
      return (
        <RadioCards
          id={id}
          name={field.name}
          legend={field.label}
          choices={field.choices}
          value={draft[field.key]}
          onChange={(value) => onChange(field.key, value)}
          errors={messages}
          invalid={invalid}
          mono={field.mono ?? false}
          compact={field.compact ?? false}
          aside={aside}
        />
      );
    default:
      return assertNever(field, "contract field");
  }
}

/** "= 24 h" beside a number of milliseconds, once it is a whole second or more. */
function durationSuffix(value: string): string | undefined {
  const n = Number(value.trim());
  return value.trim() !== "" && Number.isInteger(n) && n >= 1000 ? `= ${humanDuration(n)}` : undefined;
}

/** The server's messages first, where the eye lands after typing, then the help. */
function FieldNotes({ id, errors, help }: { id: string; errors: string[] | undefined; help: string }) {
  return (
    <>
      <FieldErrors id={`${id}-error`} errors={errors} />
      <FieldHint id={`${id}-hint`}>{help}</FieldHint>
    </>
  );
}

function Labelled(props: {
  id: string;
  label: string;
  help: string;
  errors: string[] | undefined;
  className: string;
  children: ReactNode;
}) {
  return (
    <div className={`flex min-w-0 flex-col gap-1 ${props.className}`}>
      <label htmlFor={props.id} className="font-medium text-ink">
        {props.label}
      </label>
      {props.children}
      <FieldNotes id={props.id} errors={props.errors} help={props.help} />
    </div>
  );
}

function RadioCards(props: {
  id: string;
  name: string;
  legend: string;
  choices: readonly Choice<string>[];
  value: string;
  onChange: (value: string) => void;
  errors: string[] | undefined;
  invalid: boolean;
  mono: boolean;
  compact: boolean;
  aside: ReactNode;
}) {
  const { id, choices, compact, errors, invalid } = props;
  const columns = compact
    ? choices.length === 2
      ? "sm:grid-cols-2"
      : "sm:grid-cols-3"
    : "sm:grid-cols-2 xl:grid-cols-3";
  return (
    <fieldset
      role="radiogroup"
      aria-describedby={invalid ? `${id}-error` : undefined}
      aria-invalid={invalid || undefined}
      className="min-w-0"
    >
      <legend className="mb-1 font-medium text-ink">{props.legend}</legend>
      {props.aside}
      <div className={`grid gap-1.5 ${columns}`}>
        {choices.map((choice) => {
          const checked = choice.value === props.value;
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
                name={props.name}
                value={choice.value}
                checked={checked}
                onChange={() => props.onChange(choice.value)}
                aria-describedby={`${id}-${choice.value}-help`}
                className="mt-0.5 size-3.5 shrink-0 accent-ink"
              />
              <span className="min-w-0">
                <span className={`font-medium text-ink ${props.mono ? "font-mono text-[12.5px]" : ""}`}>
                  {choice.label}
                </span>
                {/* The space is text, so the radio's name reads "fatal (default)". */}
                {choice.isDefault ? <span className="text-xs text-ink-subtle"> (default)</span> : null}
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
