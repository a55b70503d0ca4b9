// Whether React has hydrated the page: false in the server's HTML and during hydration, true afterwards.
import { useSyncExternalStore } from "react";

const subscribe = (): (() => void) => () => undefined;

/** For controls that must not act before their handlers exist (a form submitted natively would lose its handling). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
