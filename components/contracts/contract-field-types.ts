// The contract form's fields as data: a field's kind, key, form name and words; groups of fields; sections.
import type { ContractDraft } from "./contract-draft";
import type { Choice } from "./contract-words";

type Draft = ContractDraft;
/** Free text (the tool name, numbers as typed) versus one word of a fixed set (the class, the key policy). */
type TextKey = {
  [K in keyof Draft]: Draft[K] extends string ? (string extends Draft[K] ? K : never) : never;
}[keyof Draft];
type ChoiceKey = {
  [K in keyof Draft]: Draft[K] extends string ? (string extends Draft[K] ? never : K) : never;
}[keyof Draft];
type FlagKey = { [K in keyof Draft]: Draft[K] extends boolean ? K : never }[keyof Draft];
/** Each choice carries its own help. */
type ChoiceField = {
  [K in ChoiceKey]: { kind: "choice"; key: K; choices: Choice<Draft[K]>[]; mono?: boolean; compact?: boolean };
}[ChoiceKey];

interface FieldWords {
  /** The name the server's schema reports problems under, e.g. "backoff.baseMs". */
  name: string;
  /** The label, or the legend of a set of choices. */
  label: string;
  /** A parent name whose problems also belong here, e.g. "backoff" when base and max are wrong together. */
  errorsAlsoUnder?: string;
  /** Takes the whole row of a two-column group. */
  wide?: boolean;
}

export type ContractField = FieldWords &
  (
    | {
        kind: "text";
        key: TextKey;
        help: string;
        mono?: boolean;
        numeric?: boolean;
        /** Milliseconds, read back as "= 24 h" beside the box. */
        duration?: boolean;
        /** Offers the dependencies already known. */
        suggestDependencies?: boolean;
        /** What an empty box means, shown in it, e.g. "24 h when empty". */
        placeholder?: string;
        /** Asked when the contract is created and shown, not asked, when it is edited. */
        createOnly?: boolean;
      }
    | { kind: "textarea"; key: TextKey; help: string }
    | { kind: "checkbox"; key: FlagKey; help: string }
    | ChoiceField
  );

/** How a group of fields sits in its section: one under the other, or side by side in a grid. */
export type GroupLayout = "stack" | "two" | "three" | "lookup";

export interface FieldGroup {
  layout: GroupLayout;
  fields: ContractField[];
  /** Fields that only mean something for some choices (the lookup's settings) are shown only then. */
  shownWhen?: (draft: ContractDraft) => boolean;
}

export interface ContractSection {
  title: string;
  hint: string;
  groups: FieldGroup[];
}
