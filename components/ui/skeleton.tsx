// A grey placeholder block shown while content loads; decorative, so hidden from assistive technology.

export function Skeleton({ className = "" }: { className?: string }) {
  return <div aria-hidden="true" className={`rounded bg-skeleton motion-safe:animate-pulse ${className}`} />;
}
