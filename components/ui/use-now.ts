// The browser clock for relative times and ages: one timer per pace for the whole page, null during server rendering.
import { useSyncExternalStore } from "react";

/** Pages whose times are minutes or hours old: "3 min ago" needs no finer step. */
export const CALM_TICK_MS = 30_000;
/**
 * The operations views, which refresh their data every 5 s: their times keep up, so a new event never reads "in under a
 * minute".
 */
export const LIVE_TICK_MS = 5_000;

interface Clock {
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => number | null;
}

const clocks = new Map<number, Clock>();

function clockTicking(tickMs: number): Clock {
  const existing = clocks.get(tickMs);
  if (existing) return existing;
  let current: number | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  const listeners = new Set<() => void>();
  const tick = () => {
    current = Date.now();
    for (const listener of listeners) listener();
  };
  const clock: Clock = {
    subscribe(listener) {
      listeners.add(listener);
      // Every new subscriber starts from the real time, not from the last tick: a row added since reads right at once.
      current = Date.now();
      timer ??= setInterval(tick, tickMs);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
          // A page mounted later must not see a stale "now".
          current = null;
        }
      };
    },
    getSnapshot: () => current,
  };
  clocks.set(tickMs, clock);
  return clock;
}

function subscribeNever(): () => void {
  return () => undefined;
}

// The server and the hydrating client both see null, so their HTML matches.
const getServerSnapshot = (): null => null;

/** The current time in epoch milliseconds, refreshed every `tickMs`; null until the component has mounted. */
export function useNow(tickMs: number = CALM_TICK_MS, enabled = true): number | null {
  const clock = clockTicking(tickMs);
  return useSyncExternalStore(enabled ? clock.subscribe : subscribeNever, clock.getSnapshot, getServerSnapshot);
}
