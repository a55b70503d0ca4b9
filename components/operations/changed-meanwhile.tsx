// The warning inside a decision dialog when the operation moved on while it was open.
export function ChangedMeanwhile({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <p className="mt-2 rounded-md border border-phase-unknown/50 bg-phase-unknown-soft px-3 py-2 text-phase-unknown-ink">
      This operation changed while this dialog was open. Confirming will be refused; cancel and read the timeline first.
    </p>
  );
}
