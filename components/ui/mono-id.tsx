// An identifier in monospace, shortened in the middle so the start and end stay comparable; full value on hover.
import { shortenId } from "@/lib/console/shorten-id";

export interface MonoIdProps {
  value: string;
  /** Characters shown before shortening; ids up to this length are shown whole. */
  maxChars?: number;
  /** What the id identifies, read by screen readers before it, e.g. "Operation". */
  label?: string;
  className?: string;
}

export function MonoId({ value, maxChars = 14, label, className = "" }: MonoIdProps) {
  const shown = shortenId(value, maxChars);
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
