// The test upstream: an MCP server that records its effects durably and can be told to hang, exit or fail around
// its commit. Over stdio by default; `--http <port>` serves Streamable HTTP on 127.0.0.1 (TEST_UPSTREAM_BEARER then
// requires that Bearer token) and prints its endpoint on stdout.
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { serveOverHttp } from "./test-upstream/http";
import { createTestUpstream, testUpstreamFiles } from "./test-upstream/server";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { http: { type: "string" } } });
  const files = testUpstreamFiles(process.env);
  if (values.http === undefined) {
    await createTestUpstream(files).connect(new StdioServerTransport());
    return;
  }
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--http ${values.http} is not a port`);
  const bearer = process.env.TEST_UPSTREAM_BEARER;
  const served = await serveOverHttp(() => createTestUpstream(files), { port, ...(bearer ? { bearer } : {}) });
  console.log(`test upstream listening on ${served.url}`);
  const stop = (): void => {
    served.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(`test upstream: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
