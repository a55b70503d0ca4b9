// What the console's Upstreams page shows: each upstream's status and its tools as the upstream describes them, each
// marked with whether a contract exists under its gateway name.
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ToolPin } from "@/lib/platform/generated/prisma/client";
import { changedTools, toolPins } from "@/lib/ledger/commands/tool-pins";
import type { Ledger } from "@/lib/ledger/ledger";
import { seenTool } from "@/lib/services/upstreams/tool-definition";
import type { Upstreams } from "@/lib/services/upstreams/registry";
import type { UpstreamStatus } from "@/lib/services/upstreams/types";

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
   * A contracted tool whose definition differs from the one pinned when it was classified: both (pretty JSON), the
   * parts that differ, and the new one's hash and the contract version it was seen under, which an admin confirms.
   * Null when it matches.
   */
  changed: { pinned: string; now: string; fields: string[]; hash: string; contractVersion: number } | null;
}

export interface UpstreamView extends Omit<UpstreamStatus, "tools"> {
  tools: UpstreamToolRow[] | null;
}

/** The parts of a pinned definition, as people name them (both sides are canonical JSON, so keys compare in order). */
const DEFINITION_FIELDS = [
  ["name", "name"],
  ["description", "description"],
  ["inputSchema", "input schema"],
  ["annotations", "hints"],
] as const;

/** What an admin confirms of a changed tool: the pinned definition beside the changed one, as recorded. */
function changeOf(pin: ToolPin | undefined): UpstreamToolRow["changed"] {
  if (!pin?.changedHash || !pin.changedDefinition) return null;
  const before = JSON.parse(pin.definition) as Record<string, unknown>;
  const after = JSON.parse(pin.changedDefinition) as Record<string, unknown>;
  return {
    pinned: JSON.stringify(before, null, 2),
    now: JSON.stringify(after, null, 2),
    fields: DEFINITION_FIELDS.filter(
      ([key]) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null),
    ).map(([, label]) => label),
    hash: pin.changedHash,
    contractVersion: pin.contractVersion,
  };
}

/**
 * The upstreams, after giving those not yet started up to `waitMs` to start and list their tools (viewing the page is
 * a use); one still starting is shown as it is. Their contracted tools are checked against their pins as the gateway's
 * `tools/list` checks them, so a change shown is a change recorded, which is what an admin confirms.
 */
export async function upstreamsView(
  registry: Upstreams,
  ledger: Ledger,
  contracts: ReadonlyMap<string, number>,
  waitMs: number,
): Promise<UpstreamView[]> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    registry.tools(),
    new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs);
    }),
  ]);
  clearTimeout(timer);
  const statuses = registry.list();
  const seen = statuses.flatMap((status) =>
    (status.tools ?? []).flatMap(({ gatewayName, tool }) => {
      const version = contracts.get(gatewayName);
      return version === undefined ? [] : [seenTool(gatewayName, tool, version)];
    }),
  );
  const changed = seen.length > 0 ? await changedTools(ledger, seen, new Date()) : new Set<string>();
  const pins = changed.size > 0 ? await toolPins(ledger, [...changed]) : new Map<string, ToolPin>();
  return statuses.map((status) => ({
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
        hasContract: contracts.has(gatewayName),
        changed: changed.has(gatewayName) ? changeOf(pins.get(gatewayName)) : null,
      })) ?? null,
  }));
}
