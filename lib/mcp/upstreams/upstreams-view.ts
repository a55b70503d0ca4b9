// What the console's Upstreams page shows: each upstream's status and its tools as the upstream describes them, each
// marked with whether a contract exists under its gateway name.
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
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
}

export interface UpstreamView extends Omit<UpstreamStatus, "tools"> {
  tools: UpstreamToolRow[] | null;
}

/**
 * The upstreams, after giving those not yet started up to `waitMs` to start and list their tools (viewing the page is
 * a use); one still starting is shown as it is.
 */
export async function upstreamsView(
  registry: Upstreams,
  contractTools: ReadonlySet<string>,
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
      })) ?? null,
  }));
}
