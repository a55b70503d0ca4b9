// The process-wide parts of a gateway request: the upstreams and the tool-list watcher, one of each per process.
import type { KeyActor } from "@/lib/platform/auth/api-keys";
import type { Ledger } from "@/lib/ledger/ledger";
import { upstreams } from "@/lib/services/upstreams/upstreams";
import type { McpEndpointContext } from "./mcp-endpoint";
import { ToolListChanges } from "./tool-list-changes";

const globalForGateway = globalThis as unknown as { opledgerToolListChanges?: ToolListChanges };

export function mcpEndpointContext(ledger: Ledger, actor: KeyActor, now: Date): McpEndpointContext {
  const shared = upstreams();
  globalForGateway.opledgerToolListChanges ??= new ToolListChanges(ledger, shared);
  return { ledger, actor, upstreams: shared, changes: globalForGateway.opledgerToolListChanges, now };
}
