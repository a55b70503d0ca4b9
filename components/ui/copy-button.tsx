"use client";
// A small button that copies a value for the person to paste elsewhere (a trace id into a tracing tool), and says so.
import { useState, type RefObject } from "react";
import { buttonClass } from "./button-styles";

type CopyState = "idle" | "copied" | "failed";

export function CopyButton({
  value,
  label,
  selectOnFailure,
}: {
  value: string;
  /** The button's accessible name, saying what it copies: "Copy the trace id". */
  label: string;
  /** Selected when the clipboard cannot be reached (no secure context or no permission), so Ctrl+C still copies it. */
  selectOnFailure: RefObject<HTMLElement | null>;
}) {
  const [state, setState] = useState<CopyState>("idle");

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      const target = selectOnFailure.current;
      if (target) window.getSelection()?.selectAllChildren(target);
      setState("failed");
    }
  }

  return (
    <>
      <button
        type="button"
        onClick={() => void copy()}
        aria-label={label}
        title={label}
        className={buttonClass("quiet", "sm")}
      >
        {state === "copied" ? "Copied" : "Copy"}
      </button>
      <span role="status" className="sr-only">
        {state === "copied" ? "Copied to the clipboard." : state === "failed" ? "Selected: press Ctrl+C (⌘C)." : ""}
      </span>
    </>
  );
}
