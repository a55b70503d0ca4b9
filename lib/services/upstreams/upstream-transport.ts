// The transport to one upstream, opened at each start: a child process with a minimal environment (never the server's
// own, which holds NEXTAUTH_SECRET and DATABASE_URL), or Streamable HTTP under the outbound rules.
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { redact } from "@/lib/services/outbound/redact";
import type { Resolver } from "@/lib/services/outbound/resolve";
import { grantSecret, type Environment } from "@/lib/services/outbound/secrets";
import { streamingFetch } from "@/lib/services/outbound/streaming-fetch";
import type { UpstreamLog } from "./types";
import type { CommandUpstream, UpstreamConfig, UrlUpstream } from "./upstreams-file";

export interface TransportSettings {
  /** Where the named secrets are read, at each start (default: this process's environment). */
  environment: Environment;
  allowPrivate: boolean;
  log: UpstreamLog;
  /** Tests give a public-looking name any address. */
  resolve?: Resolver;
}

export type OpenedTransport =
  | {
      opened: true;
      transport: Transport;
      /** The secret values it carries, to be taken out of anything logged or kept. */
      secrets: string[];
      /** The last line the child wrote on stderr, for the sentence when it exits. */
      lastStderr: () => string | null;
    }
  | { opened: false; reason: string };

/** What the status shows: the command line or the URL, never a secret's value. */
export function upstreamTarget(config: UpstreamConfig): string {
  return config.kind === "command" ? [config.command, ...config.args].join(" ") : config.url;
}

function missing(name: string, where: string, secret: string): OpenedTransport {
  return { opened: false, reason: `Upstream "${name}": ${where} names ${secret}, which is not set.` };
}

/**
 * The child's environment: the SDK's short safe list (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus the declared
 * variables with their secrets' values. Nothing else of this process reaches the child.
 */
export function childEnvironment(
  config: CommandUpstream,
  environment: Environment,
): { env: Record<string, string>; secrets: string[] } | { missing: [string, string] } {
  const env = getDefaultEnvironment();
  const secrets: string[] = [];
  for (const [variable, secret] of Object.entries(config.env)) {
    const value = environment[secret];
    if (value === undefined || value.trim() === "") return { missing: [variable, secret] };
    env[variable] = value;
    secrets.push(value);
  }
  return { env, secrets };
}

function stdioTransport(name: string, config: CommandUpstream, settings: TransportSettings): OpenedTransport {
  const child = childEnvironment(config, settings.environment);
  if ("missing" in child) return missing(name, `env.${child.missing[0]}`, child.missing[1]);
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: child.env,
    ...(config.cwd === null ? {} : { cwd: config.cwd }),
    // Piped, not inherited: each line goes to our log with the upstream's name, its secrets taken out.
    stderr: "pipe",
  });
  let last: string | null = null;
  let partial = "";
  const clean = (line: string) => child.secrets.reduce((text, secret) => redact(text, secret), line);
  transport.stderr?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split(/\r?\n/);
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      last = clean(line);
      settings.log(`opledger: upstream ${name}: ${last}`);
    }
  });
  return { opened: true, transport, secrets: child.secrets, lastStderr: () => last };
}

function httpTransport(name: string, config: UrlUpstream, settings: TransportSettings): OpenedTransport {
  const url = new URL(config.url);
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  const secretNames: string[] = [];
  for (const [header, secret] of Object.entries(config.headers)) {
    const grant = grantSecret(secret, url, settings.environment);
    if (!("granted" in grant))
      return grant.rule === "secret_missing"
        ? missing(name, `headers.${header}`, secret)
        : { opened: false, reason: `Upstream "${name}": headers.${header}: ${grant.reason}` };
    headers[header] = grant.value;
    secrets.push(grant.value);
    secretNames.push(grant.name);
  }
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    fetch: streamingFetch({ allowPrivate: settings.allowPrivate, secretNames, resolve: settings.resolve }),
  });
  return { opened: true, transport, secrets, lastStderr: () => null };
}

export function openTransport(name: string, config: UpstreamConfig, settings: TransportSettings): OpenedTransport {
  return config.kind === "command" ? stdioTransport(name, config, settings) : httpTransport(name, config, settings);
}
