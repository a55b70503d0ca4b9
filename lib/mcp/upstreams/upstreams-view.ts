// What the console's Upstreams page shows: each upstream's status and its tools as the upstream describes them, each
// marked with whether a contract exists under its gateway name.
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ToolPin } from "@/lib/generated/prisma/client";
import { pinned } from "@/lib/ledger/commands/tool-pins";
import { toolDefinition } from "@/lib/mcp/gateway/tool-definition";
import type { Upstreams } from "./registry";
import type { UpstreamStatus } from "./types";

export interface UpstreamToolRow {
  gatewayName: string;
  /** The upstream's own name for it. */
  name: string;
  title: string | null;
  description: string | null;
  /** The upstream's hints, untrusted: shown, never used for a decision. */
  hints: Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">;
  hasContract: boolean;
  /**
   * A contracted tool whose definition differs from the one pinned when it was classified: both (pretty JSON) and the
   * new one's hash, which an admin confirms. Null when it matches, or has no pin yet.
   */
  changed: { pinned: string; now: string; hash: string } | null;
}

export interface UpstreamView extends Omit<UpstreamStatus, "tools"> {
  tools: UpstreamToolRow[] | null;
}

/**
 * The upstreams, after giving those not yet started up to `waitMs` to start and list their tools (viewing the page is
 * a use); one still starting is shown as it is.
 */
/** The pinned definition against the one the upstream gives now; null when they match. */
function changeOf(pin: Pick<ToolPin, "hash" | "definition"> | undefined, tool: Tool): UpstreamToolRow["changed"] {
  if (!pin) return null;
  const now = pinned(toolDefinition(tool));
  if (now.hash === pin.hash) return null;
  const pretty = (json: string) => JSON.stringify(JSON.parse(json), null, 2);
  return { pinned: pretty(pin.definition), now: pretty(now.json), hash: now.hash };
}

export async function upstreamsView(
  registry: Upstreams,
  contractTools: ReadonlySet<string>,
  waitMs: number,
  pins: ReadonlyMap<string, Pick<ToolPin, "hash" | "definition">> = new Map(),
): Promise<UpstreamView[]> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    registry.tools(),
    new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs);
    }),
  ]);
  clearTimeout(timer);
  return registry.list().map((status) => ({
    ...status,
    tools:
      status.tools?.map(({ gatewayName, tool }) => ({
        gatewayName,
        name: tool.name,
        title: tool.title ?? tool.annotations?.title ?? null,
        description: tool.description ?? null,
        hints: {
          readOnlyHint: tool.annotations?.readOnlyHint,
          destructiveHint: tool.annotations?.destructiveHint,
          idempotentHint: tool.annotations?.idempotentHint,
          openWorldHint: tool.annotations?.openWorldHint,
        },
        hasContract: contractTools.has(gatewayName),
        changed: contractTools.has(gatewayName) ? changeOf(pins.get(gatewayName), tool) : null,
      })) ?? null,
  }));
}
