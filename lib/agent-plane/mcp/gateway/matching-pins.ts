// Whether a contracted tool changed under its contract (docs/mcp.md, "Pinned tools"), asked on every tools/call: from
// memory once this process has seen the tool's definition match its pin.
//
// Why a remembered match stays true, on every instance: a pin is made for one contract version, and the definition it
// pins never changes for that version. A new classification or a confirmed new definition makes a new contract
// version, which is pinned afresh (lib/ledger/commands/tool-pins.ts). So "this definition (by its hash) matched the pin
// of contract version v" holds for as long as the tool is at version v; a call reads the contract's current version
// first, and a new version is another entry here. Only a match is remembered: a definition that differs, or one not
// pinned yet, is looked up (and recorded) every time, as before.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { changedTools, pinned } from "@/lib/ledger/commands/tool-pins";
import type { Ledger } from "@/lib/ledger/ledger";
import { seenTool, toolDefinition } from "@/lib/services/upstreams/tool-definition";

/** Matches remembered per ledger, the oldest forgotten first: far more than the tools of any set of upstreams. */
const MAX_MATCHES = 4096;
const matchesOf = new WeakMap<Ledger, Set<string>>();
/** The hash of each definition the upstreams gave (their tool objects are kept until the tools are listed again). */
const hashes = new WeakMap<Tool, string>();

function hashOf(tool: Tool): string {
  let hash = hashes.get(tool);
  if (hash === undefined) {
    hash = pinned(toolDefinition(tool)).hash;
    hashes.set(tool, hash);
  }
  return hash;
}

/** Whether `tool` (the upstream's definition of `name`) differs from the one pinned for its contract version. */
export async function toolChanged(
  ledger: Ledger,
  name: string,
  tool: Tool,
  contractVersion: number,
  now: Date,
): Promise<boolean> {
  const match = `${name}\n${contractVersion}\n${hashOf(tool)}`;
  let matches = matchesOf.get(ledger);
  if (!matches) matchesOf.set(ledger, (matches = new Set()));
  if (matches.has(match)) return false;
  const changed = (await changedTools(ledger, [seenTool(name, tool, contractVersion)], now)).has(name);
  if (!changed) {
    matches.add(match);
    if (matches.size > MAX_MATCHES) matches.delete(matches.values().next().value as string);
  }
  return changed;
}
