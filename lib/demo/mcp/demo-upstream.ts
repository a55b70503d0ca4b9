// The demo world's MCP upstream, a support desk over stdio, started by the gateway from the demo upstreams file:
//   node --import tsx lib/demo/mcp/demo-upstream.ts [--seed N] [--hang-every N] [--state FILE]
// Its settings are arguments, not environment variables: an upstream's env in that file may only name secrets.
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { SupportDesk } from "./desk";
import { DeskFaults } from "./desk-faults";
import { createDeskServer } from "./desk-server";

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number of 0 or more`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seed: { type: "string" }, "hang-every": { type: "string" }, state: { type: "string" } },
  });
  const faults = new DeskFaults({
    seed: integer("seed", values.seed, 1),
    hangEvery: integer("hang-every", values["hang-every"], 5),
  });
  const server = createDeskServer(new SupportDesk(values.state ?? null), faults);
  await server.connect(new StdioServerTransport());
}

main().catch((error: unknown) => {
  // stderr: stdout is the protocol channel.
  console.error(`demo desk upstream: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
