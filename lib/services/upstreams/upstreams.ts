// The process's upstreams, one registry on globalThis (so Next.js hot reload never leaks child processes), built from
// OPLEDGER_MCP_UPSTREAMS; and the start-up check that a bad upstreams file stops the server with one sentence.
import { env, EnvError } from "@/lib/platform/config/env";
import { openUpstreams, type Upstreams } from "./registry";
import type { CallOptions, UpstreamCall } from "./types";
import { readUpstreamsFile } from "./upstreams-file";

const globalForUpstreams = globalThis as unknown as { opledgerUpstreams?: Upstreams };

export function upstreams(): Upstreams {
  globalForUpstreams.opledgerUpstreams ??= openUpstreams(env().OPLEDGER_MCP_UPSTREAMS ?? null, {
    allowPrivate: env().OPLEDGER_OUTBOUND_ALLOW_PRIVATE === "on",
  });
  return globalForUpstreams.opledgerUpstreams;
}

/** Calls `tool` of `upstream` through the process's upstreams; see UpstreamCall for what each outcome means. */
export function callUpstreamTool(
  upstream: string,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<UpstreamCall> {
  return upstreams().callUpstreamTool(upstream, tool, args, options);
}

/** Stops the process's upstreams (their child processes included), if they were ever opened. */
export async function closeUpstreams(): Promise<void> {
  const opened = globalForUpstreams.opledgerUpstreams;
  delete globalForUpstreams.opledgerUpstreams;
  await opened?.close();
}

/** Throws EnvError naming every problem of the upstreams file, if one is configured and it is bad. */
export function assertUpstreamsFile(file: string | undefined): void {
  if (file === undefined) return;
  const result = readUpstreamsFile(file);
  if (!result.ok) throw new EnvError(`opledger cannot start: OPLEDGER_MCP_UPSTREAMS: ${result.problems.join(" ")}`);
}
