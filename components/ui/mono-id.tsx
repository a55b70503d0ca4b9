// An identifier in monospace, shortened in the middle so the start and end stay comparable; full value on hover.

export interface MonoIdProps {
  value: string;
  /** Characters shown before shortening; ids up to this length are shown whole. */
  maxChars?: number;
  /** What the id identifies, read by screen readers before it, e.g. "Operation". */
  label?: string;
  className?: string;
}

const ELLIPSIS = "…";

function shorten(value: string, maxChars: number): string {
  if (value.length <= maxChars) return value;
  const tail = Math.max(2, Math.floor((maxChars - 1) / 3));
  const head = Math.max(1, maxChars - 1 - tail);
  return `${value.slice(0, head)}${ELLIPSIS}${value.slice(value.length - tail)}`;
}

export function MonoId({ value, maxChars = 14, label, className = "" }: MonoIdProps) {
  const shown = shorten(value, maxChars);
  return (
    <span title={value} translate="no" className={`font-mono text-[12.5px] whitespace-nowrap ${className}`}>
      {/* Screen readers get the whole id; the shortened one is for the eye. */}
      <span aria-hidden="true">{shown}</span>
      <span className="sr-only">
        {label ? `${label} ` : ""}
        {value}
      </span>
    </span>
  );
}
