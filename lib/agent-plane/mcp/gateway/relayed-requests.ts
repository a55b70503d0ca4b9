// What the gateway relays unchanged from its upstreams, merged: prompts (named `<upstream>__<prompt>`, like tools) and
// resources (their URIs kept as the upstream gave them). None of them changes the world, so none is recorded.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Upstreams } from "@/lib/services/upstreams/registry";
import { gatewayToolName, parseGatewayToolName } from "@/lib/services/upstreams/tool-names";

export type RelayUpstreams = Pick<Upstreams, "list" | "client">;

/** A listing is merged from at most this many pages per upstream: a bound, not a policy. */
const MAX_PAGES = 20;
/** MCP's "resource not found". */
const RESOURCE_NOT_FOUND = -32002;

type Capability = "prompts" | "resources";

/** The connected clients of the upstreams that offer `capability`; one that cannot start is left out. */
async function clientsWith(upstreams: RelayUpstreams, capability: Capability): Promise<[string, Client][]> {
  const clients = await Promise.all(
    upstreams.list().map(async ({ name }): Promise<[string, Client] | null> => {
      const client = await upstreams.client(name);
      return typeof client !== "string" && client.getServerCapabilities()?.[capability] ? [name, client] : null;
    }),
  );
  return clients.filter((c): c is [string, Client] => c !== null);
}

/** Every page of one upstream's listing; an upstream that fails to answer contributes what it gave. */
async function allPages<T>(list: (cursor: string | undefined) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await list(cursor);
      items.push(...answer.items);
      if (!answer.next) break;
      cursor = answer.next;
    }
  } catch (error) {
    console.error("opledger mcp: an upstream's listing failed:", error instanceof Error ? error.message : error);
  }
  return items;
}

export function relayRequests(server: Server, upstreams: RelayUpstreams): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    const perUpstream = await Promise.all(
      (await clientsWith(upstreams, "prompts")).map(([name, client]) =>
        allPages(async (cursor) => {
          const { prompts, nextCursor } = await client.listPrompts(cursor ? { cursor } : undefined);
          return { items: prompts.map((p) => ({ ...p, name: gatewayToolName(name, p.name) })), next: nextCursor };
        }),
      ),
    );
    return { prompts: perUpstream.flat() };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const parsed = parseGatewayToolName(request.params.name);
    const client = parsed ? await upstreams.client(parsed.upstream) : null;
    if (!parsed || client === null || typeof client === "string") {
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no prompt named ${request.params.name} behind the gateway.`,
      );
    }
    return client.getPrompt({ ...request.params, name: parsed.tool });
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const perUpstream = await Promise.all(
      (await clientsWith(upstreams, "resources")).map(([, client]) =>
        allPages(async (cursor) => {
          const { resources, nextCursor } = await client.listResources(cursor ? { cursor } : undefined);
          return { items: resources, next: nextCursor };
        }),
      ),
    );
    return { resources: perUpstream.flat() };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    const perUpstream = await Promise.all(
      (await clientsWith(upstreams, "resources")).map(([, client]) =>
        allPages(async (cursor) => {
          const { resourceTemplates, nextCursor } = await client.listResourceTemplates(cursor ? { cursor } : undefined);
          return { items: resourceTemplates, next: nextCursor };
        }),
      ),
    );
    return { resourceTemplates: perUpstream.flat() };
  });

  // URIs are the upstreams' own, so the first upstream that can read one answers.
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    for (const [, client] of await clientsWith(upstreams, "resources")) {
      try {
        return await client.readResource(request.params);
      } catch {
        // Not this upstream's resource; the next may have it.
      }
    }
    throw new McpError(RESOURCE_NOT_FOUND, `No upstream has the resource ${request.params.uri}.`);
  });
}
