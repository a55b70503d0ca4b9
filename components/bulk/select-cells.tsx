"use client";
// The checkbox column of an operation table: one box per row, and one in the header for the rows shown.
import type { BulkSelection } from "./use-bulk-selection";

const BOX = "size-4 cursor-pointer accent-ink focus-visible:outline-2 focus-visible:outline-offset-2";

export function SelectPageBox({ selection, ids }: { selection: BulkSelection; ids: readonly string[] }) {
  const all = ids.length > 0 && ids.every((id) => selection.isSelected(id));
  const some = !all && ids.some((id) => selection.isSelected(id));
  return (
    <input
      type="checkbox"
      className={BOX}
      aria-label="Select every operation on this page"
      checked={all}
      ref={(box) => {
        if (box) box.indeterminate = some;
      }}
      disabled={selection.allMatching}
      onChange={() => selection.togglePage(ids)}
    />
  );
}

export function SelectRowBox({ selection, id }: { selection: BulkSelection; id: string }) {
  return (
    <input
      type="checkbox"
      className={BOX}
      aria-label={`Select operation ${id}`}
      data-bulk-select={id}
      checked={selection.isSelected(id)}
      disabled={selection.allMatching}
      onChange={() => selection.toggle(id)}
    />
  );
}
