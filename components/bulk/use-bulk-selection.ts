"use client";
// Which rows a person picked for a bulk action: single rows (kept across pages), or "all that match this filter".
import { useCallback, useMemo, useState } from "react";

export interface BulkSelection {
  selected: ReadonlySet<string>;
  /** Every operation that matches the page's filter, not only the rows shown. */
  allMatching: boolean;
  isSelected: (id: string) => boolean;
  toggle: (id: string) => void;
  /** Selects every row shown, or clears them when all are selected already. */
  togglePage: (ids: readonly string[]) => void;
  selectAllMatching: () => void;
  clear: () => void;
}

export function useBulkSelection(): BulkSelection {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);

  const toggle = useCallback((id: string) => {
    setAllMatching(false);
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const togglePage = useCallback((ids: readonly string[]) => {
    setAllMatching(false);
    setSelected((current) => {
      const next = new Set(current);
      const all = ids.every((id) => next.has(id));
      for (const id of ids) {
        if (all) next.delete(id);
        else next.add(id);
      }
      return next;
    });
  }, []);

  const selectAllMatching = useCallback(() => setAllMatching(true), []);
  const clear = useCallback(() => {
    setAllMatching(false);
    setSelected(new Set());
  }, []);

  return useMemo(
    () => ({
      selected,
      allMatching,
      isSelected: (id: string) => allMatching || selected.has(id),
      toggle,
      togglePage,
      selectAllMatching,
      clear,
    }),
    [selected, allMatching, toggle, togglePage, selectAllMatching, clear],
  );
}
