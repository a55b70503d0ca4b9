// A shared, coarse browser clock for relative times: one timer for the whole page, null during server rendering.
import { useSyncExternalStore } from "react";

const TICK_MS = 30_000;

let current: number | null = null;
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function tick(): void {
  current = Date.now();
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === undefined) {
    current = Date.now();
    timer = setInterval(tick, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
      // A page mounted later must not see a stale "now".
      current = null;
    }
  };
}

function subscribeNever(): () => void {
  return () => undefined;
}

const getSnapshot = (): number | null => current;
// The server and the hydrating client both see null, so their HTML matches.
const getServerSnapshot = (): null => null;

/** The current time in epoch milliseconds, refreshed every 30 s; null until the component has mounted. */
export function useNow(enabled = true): number | null {
  return useSyncExternalStore(enabled ? subscribe : subscribeNever, getSnapshot, getServerSnapshot);
}
