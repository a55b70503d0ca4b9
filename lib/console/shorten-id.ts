// An identifier shortened in the middle for a table cell, so its start and end stay comparable.

const ELLIPSIS = "…";

/**
 * At most `maxChars` characters (code points, not UTF-16 units: a cut through a surrogate pair would leave half of it,
 * which the server's HTML carries as U+FFFD and the hydrating browser does not, so React throws the page's tree away).
 */
export function shortenId(value: string, maxChars: number): string {
  const chars = Array.from(value);
  if (chars.length <= maxChars) return value;
  const tail = Math.max(2, Math.floor((maxChars - 1) / 3));
  const head = Math.max(1, maxChars - 1 - tail);
  return `${chars.slice(0, head).join("")}${ELLIPSIS}${chars.slice(chars.length - tail).join("")}`;
}
