// The agent plane (lib/agent-plane) on a Node server of its own, on an ephemeral loopback port: what the production
// server runs for /api/v1, /mcp and the probes, for tests that call the API over HTTP on a test database (set as the
// process's ledger on globalThis.opledgerLedger).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serveAgentPlane } from "@/lib/agent-plane/entry";

export interface AgentPlaneServer {
  url: string;
  close(): Promise<void>;
}

export async function startAgentPlane(): Promise<AgentPlaneServer> {
  const server = createServer((req, res) => void serveAgentPlane(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
