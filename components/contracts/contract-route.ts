// Reading the [tool] segment of the contract pages: decoded once, and checked against the tool-name rule before any
// query.
import { TOOL_NAME } from "@/lib/ledger/contracts/contract-schema";

/** The tool name from the URL, or null when it cannot be one (the page then answers 404). */
export function toolFromParam(raw: string): string | null {
  let tool = raw;
  try {
    tool = decodeURIComponent(raw);
  } catch {
    return null;
  }
  return TOOL_NAME.test(tool) ? tool : null;
}

export function contractPath(tool: string, suffix = ""): string {
  return `/contracts/${encodeURIComponent(tool)}${suffix}`;
}

/** A positive version number from a search parameter, or undefined. */
export function versionParam(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || !/^\d{1,9}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 ? n : undefined;
}
