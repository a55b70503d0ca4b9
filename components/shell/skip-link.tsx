// Lets keyboard users jump past the navigation straight to the page's content.

export function SkipLink({ targetId }: { targetId: string }) {
  return (
    <a
      href={`#${targetId}`}
      className={
        "sr-only rounded-md bg-surface px-3 py-2 font-medium text-ink shadow ring-1 ring-line-strong " +
        "focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50"
      }
    >
      Skip to content
    </a>
  );
}
