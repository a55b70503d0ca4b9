"use client";
// The top bar's search box on every console page: an operation id, idempotency key, provider id, run id or a value in
// the arguments; Enter opens the Search page (which goes straight to an operation named by its id). `/` focuses it.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useId, useState, type FormEvent } from "react";

/** The keyboard shortcuts focus this field by id. */
export const SEARCH_INPUT_ID = "console-search";

export function SearchBox() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const hintId = useId();
  const current = pathname === "/search" ? (params.get("q") ?? "") : "";
  const [text, setText] = useState(current);
  // The box shows what the Search page searched for, also after back and forward.
  const [shown, setShown] = useState(current);
  if (shown !== current) {
    setShown(current);
    setText(current);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const q = text.trim();
    if (q) router.push(`/search?q=${encodeURIComponent(q)}`);
  }

  return (
    <form role="search" onSubmit={submit} className="w-full max-w-md">
      <label htmlFor={SEARCH_INPUT_ID} className="sr-only">
        Find an operation
      </label>
      <input
        id={SEARCH_INPUT_ID}
        type="search"
        value={text}
        onChange={(event) => setText(event.target.value)}
        maxLength={255}
        autoComplete="off"
        spellCheck={false}
        placeholder="Find: operation id, idempotency key, provider id, run id, customer id…"
        aria-describedby={hintId}
        className={
          "h-7 w-full rounded-md border border-line-strong bg-surface-sunken px-2.5 font-mono text-[12.5px] " +
          "text-ink shadow-xs placeholder:font-sans placeholder:text-ink-subtle"
        }
      />
      <span id={hintId} className="sr-only">
        Exact match, case-sensitive. Press Enter to search; press slash anywhere to come back here.
      </span>
    </form>
  );
}
