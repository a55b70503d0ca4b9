// mcp-proxy (npm, docs/decisions/027-mcp-proxy-peer.md): the Streamable HTTP front for a stdio MCP server that a team
// would otherwise put in front of its tools. Its command line starts the stdio server once and serves every client's
// session over one connection to it, as the gateway does with a stdio upstream; it runs here with its defaults
// (sessions, answers as event streams, its resumability event store), on loopback and a port of the module's block.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { startNodeProcess, type BenchProcess } from "./child-process";

const PACKAGE_DIR = path.dirname(require.resolve("mcp-proxy/package.json"));

/** The installed version, for the result's notes. */
export function mcpProxyVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string }).version;
}

/** Resolves once `port` on loopback accepts a connection (mcp-proxy announces its port before it listens). */
async function accepting(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (connected) return;
    if (Date.now() > deadline) throw new Error(`mcp-proxy did not listen on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `mcp-proxy --port <port> --host 127.0.0.1 -- <command...>`: its Streamable HTTP endpoint (/mcp) in front of the stdio
 * server `command` starts, which inherits `env` on top of this process's environment (mcp-proxy passes its own on).
 */
export function startMcpProxy(
  port: number,
  command: string[],
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<BenchProcess> {
  const bin = path.join(PACKAGE_DIR, "dist", "bin", "mcp-proxy.mjs");
  return startNodeProcess(
    "mcp-proxy",
    [bin, "--port", String(port), "--host", "127.0.0.1", "--", ...command],
    env,
    log,
    /starting server on port (\d+)/,
    async () => {
      await accepting(port);
      return `http://127.0.0.1:${port}/mcp`;
    },
  );
}
