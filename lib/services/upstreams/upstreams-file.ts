// The upstreams file (OPLEDGER_MCP_UPSTREAMS): the MCP servers behind the gateway, validated into one sentence per
// problem, each naming the upstream and the field, so a bad file stops start-up (or a bad edit is refused) clearly.
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { grantSecret, SECRET_NAME, type Environment } from "@/lib/services/outbound/secrets";

export const UPSTREAM_NAME = /^[a-z0-9-]{1,32}$/;

/** Started by opledger, spoken to over stdio. */
export interface CommandUpstream {
  kind: "command";
  command: string;
  args: string[];
  /** The child's variable name -> the OPLEDGER_SECRET_* variable whose value it gets at start. */
  env: Record<string, string>;
  /** Absolute; a relative cwd in the file is relative to the file. */
  cwd: string | null;
}

/** Reached over Streamable HTTP. */
export interface UrlUpstream {
  kind: "url";
  url: string;
  /** Header name (lower case) -> the OPLEDGER_SECRET_* variable whose value it carries. */
  headers: Record<string, string>;
}

export type UpstreamConfig = CommandUpstream | UrlUpstream;

export interface UpstreamsConfig {
  upstreams: Record<string, UpstreamConfig>;
}

export type UpstreamsFileResult = { ok: true; config: UpstreamsConfig } | { ok: false; problems: string[] };

const CHILD_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** Headers the transport sets itself: a secret in one of them would break the protocol, not authenticate it. */
const TRANSPORT_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

const secretMap = z.record(z.string(), z.string({ error: "must name an OPLEDGER_SECRET_* variable" }), {
  error: "must be an object of names to OPLEDGER_SECRET_* variables",
});

const commandSchema = z.strictObject({
  command: z.string({ error: "must be text" }).trim().min(1, "must not be empty"),
  args: z.array(z.string({ error: "must be text" }), { error: "must be a list of strings" }).optional(),
  env: secretMap.optional(),
  cwd: z.string({ error: "must be text" }).trim().min(1, "must not be empty").optional(),
});

const urlSchema = z.strictObject({
  url: z.string({ error: "must be text" }).trim().min(1, "must not be empty"),
  headers: secretMap.optional(),
});

const fileSchema = z.strictObject({
  upstreams: z.record(z.string(), z.unknown(), { error: "must be an object of upstreams by name" }),
});

function field(pathParts: readonly PropertyKey[]): string {
  return pathParts
    .map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`))
    .join("");
}

function issueSentences(issues: readonly z.core.$ZodIssue[], where: string, keysOf: string): string[] {
  return issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => `"${k}"`).join(", ");
      const at = issue.path.length > 0 ? ` in ${field(issue.path)}` : "";
      return `${where}: unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}${at} (${keysOf}).`;
    }
    return `${where}: ${field(issue.path) || "the entry"} ${issue.message}.`;
  });
}

function secretProblem(where: string, at: string, secret: string, environment: Environment): string | null {
  if (!SECRET_NAME.test(secret) || secret.endsWith("_HOSTS"))
    return `${where}: ${at} must name an OPLEDGER_SECRET_* variable, not "${secret}".`;
  const value = environment[secret];
  if (value === undefined || value.trim() === "")
    return `${where}: ${at} names ${secret}, which is not set in the server's environment.`;
  return null;
}

function commandUpstream(
  where: string,
  entry: z.infer<typeof commandSchema>,
  baseDir: string,
  environment: Environment,
): { upstream: CommandUpstream; problems: string[] } {
  const problems: string[] = [];
  for (const [variable, secret] of Object.entries(entry.env ?? {})) {
    if (!CHILD_VARIABLE.test(variable)) {
      problems.push(`${where}: env.${variable} is not a valid environment variable name.`);
      continue;
    }
    const problem = secretProblem(where, `env.${variable}`, secret, environment);
    if (problem) problems.push(problem);
  }
  return {
    upstream: {
      kind: "command",
      command: entry.command,
      args: entry.args ?? [],
      env: entry.env ?? {},
      cwd: entry.cwd === undefined ? null : path.resolve(baseDir, entry.cwd),
    },
    problems,
  };
}

function urlUpstream(
  where: string,
  entry: z.infer<typeof urlSchema>,
  environment: Environment,
): { upstream: UrlUpstream; problems: string[] } {
  const problems: string[] = [];
  const headers: Record<string, string> = {};
  let url: URL | null = null;
  try {
    url = new URL(entry.url);
  } catch {
    problems.push(`${where}: url "${entry.url}" is not an absolute URL.`);
  }
  if (url && url.protocol !== "http:" && url.protocol !== "https:") {
    problems.push(`${where}: url must be http or https, not ${url.protocol.slice(0, -1)}.`);
    url = null;
  }
  if (url && (url.username || url.password)) {
    problems.push(
      `${where}: url carries a user name or password; credentials come only from headers naming OPLEDGER_SECRET_* variables.`,
    );
    url = null;
  }
  for (const [name, secret] of Object.entries(entry.headers ?? {})) {
    const header = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      problems.push(`${where}: headers.${name} is not a valid header name.`);
      continue;
    }
    if (TRANSPORT_HEADERS.has(header)) {
      problems.push(`${where}: headers.${name} is set by the transport itself and cannot carry a secret.`);
      continue;
    }
    headers[header] = secret;
    const problem = secretProblem(where, `headers.${name}`, secret, environment);
    if (problem) {
      problems.push(problem);
      continue;
    }
    if (!url) continue;
    const grant = grantSecret(secret, url, environment);
    if ("granted" in grant) continue;
    if (grant.rule === "secret_https")
      problems.push(
        `${where}: headers.${name} sends ${secret}, and a secret goes only over https (or to a loopback address); make the url https.`,
      );
    else problems.push(`${where}: headers.${name}: ${grant.reason}`);
  }
  return { upstream: { kind: "url", url: entry.url, headers }, problems };
}

/**
 * Validates the text of an upstreams file. `file` names it in sentences and anchors a relative cwd; `environment`
 * is where the named secrets must be set (default: this process's environment).
 */
export function parseUpstreamsText(
  text: string,
  file: string,
  environment: Environment = process.env,
): UpstreamsFileResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problems: [`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`],
    };
  }
  const top = fileSchema.safeParse(json);
  if (!top.success) {
    const isObject = typeof json === "object" && json !== null && !Array.isArray(json);
    if (!isObject) return { ok: false, problems: [`${file} must hold an object with "upstreams".`] };
    return { ok: false, problems: issueSentences(top.error.issues, file, 'the file has only "upstreams"') };
  }
  const problems: string[] = [];
  const upstreams: Record<string, UpstreamConfig> = {};
  const baseDir = path.dirname(path.resolve(file));
  for (const [name, raw] of Object.entries(top.data.upstreams)) {
    const where = `Upstream "${name}"`;
    if (!UPSTREAM_NAME.test(name)) {
      problems.push(`${where}: the name must be 1 to 32 lower-case letters, digits or "-".`);
      continue;
    }
    const isObject = typeof raw === "object" && raw !== null && !Array.isArray(raw);
    const hasCommand = isObject && "command" in raw;
    const hasUrl = isObject && "url" in raw;
    if (hasCommand === hasUrl) {
      problems.push(
        `${where}: must have either "command" (started over stdio) or "url" (Streamable HTTP)${hasCommand ? ", not both" : ""}.`,
      );
      continue;
    }
    if (hasCommand) {
      const entry = commandSchema.safeParse(raw);
      if (!entry.success) {
        problems.push(...issueSentences(entry.error.issues, where, "a command upstream has command, args, env, cwd"));
        continue;
      }
      const built = commandUpstream(where, entry.data, baseDir, environment);
      problems.push(...built.problems);
      upstreams[name] = built.upstream;
    } else {
      const entry = urlSchema.safeParse(raw);
      if (!entry.success) {
        problems.push(...issueSentences(entry.error.issues, where, "a url upstream has url, headers"));
        continue;
      }
      const built = urlUpstream(where, entry.data, environment);
      problems.push(...built.problems);
      upstreams[name] = built.upstream;
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config: { upstreams } };
}

/** Reads and validates the upstreams file at `file`. */
export function readUpstreamsFile(file: string, environment: Environment = process.env): UpstreamsFileResult {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = error instanceof Error && "code" in error && typeof error.code === "string" ? ` (${error.code})` : "";
    return { ok: false, problems: [`The upstreams file ${file} cannot be read${code}.`] };
  }
  return parseUpstreamsText(text, file, environment);
}
