"use client";
// A browser clock for the operations views that is fresh when a view mounts and ticks every 5 s, so a just-written event never reads "in under a minute".
import { useSyncExternalStore } from "react";
import { RelativeTime } from "@/components/ui/relative-time";

const TICK_MS = 5_000;

let current: number | null = null;
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function tick(): void {
  current = Date.now();
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Every new subscriber starts from the real time, not from the last tick.
  current = Date.now();
  timer ??= setInterval(tick, TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
      current = null;
    }
  };
}

/** Epoch milliseconds, or null during server rendering and hydration (so their HTML matches). */
export function useFreshNow(): number | null {
  return useSyncExternalStore(
    subscribe,
    () => current,
    () => null,
  );
}

/** RelativeTime with the fresh clock: "3 min ago", exact UTC time on hover. */
export function Ago({ value, className }: { value: string; className?: string }) {
  const now = useFreshNow();
  return <RelativeTime value={value} now={now ?? undefined} className={className} />;
}
