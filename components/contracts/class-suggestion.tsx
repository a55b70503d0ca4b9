// What "Classify" says beside the class: the class the upstream's hints suggest, why, and that the hints are untrusted.
import type { EffectClass } from "@/lib/retry-gate/types";
import { EffectBadge } from "./effect-badge";

export interface ClassSuggestion {
  /** Null: the hints suggest nothing, and the cautious class is preselected. */
  effect: EffectClass | null;
  /** One sentence naming the hints the suggestion comes from. */
  why: string;
}

export function ClassSuggestionNote({ suggestion }: { suggestion: ClassSuggestion }) {
  return (
    <div data-testid="class-suggestion" className="mb-2 rounded-md border border-dashed border-line-strong px-3 py-2">
      <p className="text-ink">
        {suggestion.effect ? (
          <>
            Suggested from the upstream&apos;s hints: <EffectBadge effect={suggestion.effect} /> (preselected).
          </>
        ) : (
          "No class suggested from the upstream's hints."
        )}{" "}
        <span className="text-ink-muted">{suggestion.why}</span>
      </p>
      <p className="mt-0.5 text-xs text-ink-subtle">
        The hints are the upstream&apos;s own description of its tool and are not trusted: you choose the class.
      </p>
    </div>
  );
}
