// The shared shape of phase and decision badges: a coloured dot plus a text label, never colour alone.

export interface StatusPillProps {
  /** The words shown; the colour only repeats what they say. */
  label: string;
  /** Fill, text and ring colour classes, e.g. "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/30". */
  toneClassName: string;
  /** Dot colour class, e.g. "bg-phase-unknown". */
  dotClassName: string;
  /** Extra attributes for tests and filters, e.g. data-phase. */
  data?: Readonly<Record<`data-${string}`, string>>;
  className?: string;
}

export function StatusPill({ label, toneClassName, dotClassName, data, className = "" }: StatusPillProps) {
  return (
    <span
      {...data}
      className={
        "inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs leading-4 font-medium " +
        `whitespace-nowrap ring-1 ring-inset ${toneClassName} ${className}`
      }
    >
      <span aria-hidden="true" className={`size-1.5 shrink-0 rounded-full ${dotClassName}`} />
      {label}
    </span>
  );
}
