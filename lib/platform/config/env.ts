// The validated environment: parsed once with zod; a missing or bad variable stops start-up with one clear sentence.
import { z } from "zod";
import { defaultDatabaseUrl } from "./database-url";

const optionalText = z
  .string()
  .trim()
  .transform((v) => (v.length === 0 ? undefined : v))
  .optional();

const optionalHttpUrl = optionalText.pipe(
  z.url({ protocol: /^https?$/, error: "must be an http(s) URL, such as https://opledger.example.com" }).optional(),
);

/** Where the console's Trace links go: the trace id takes the place of `{traceId}` (lib/console/trace-link.ts). */
const traceUrlTemplate = optionalText.pipe(
  z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL, such as https://jaeger.example/trace/{traceId}" })
    .refine((v) => v.includes("{traceId}"), "must contain {traceId}, where the console puts the trace id")
    .optional(),
);

const OIDC_TRIO = ["OPLEDGER_OIDC_ISSUER", "OPLEDGER_OIDC_CLIENT_ID", "OPLEDGER_OIDC_CLIENT_SECRET"] as const;

const envSchema = z
  .object({
    DATABASE_URL: z
      .string()
      .trim()
      .default(() => defaultDatabaseUrl())
      .refine((v) => v.startsWith("file:") || /^postgres(ql)?:\/\//.test(v), {
        message: "must start with file: (SQLite) or postgresql:// (PostgreSQL)",
      }),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    HOSTNAME: optionalText,
    OPLEDGER_BOOTSTRAP_API_KEY: optionalText.pipe(z.string().min(32, "must be at least 32 characters").optional()),
    OPLEDGER_ADMIN_EMAIL: optionalText.pipe(z.email("must be an email address").optional()),
    OPLEDGER_ADMIN_PASSWORD: optionalText.pipe(
      z.string().min(12, "must be at least 12 characters").max(256, "must be at most 256 characters").optional(),
    ),
    OPLEDGER_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(5000),
    OPLEDGER_DEMO: z.enum(["on", "off"]).default("off"),
    /** Four-eyes rule: whoever asked for an approval may not give it. */
    OPLEDGER_FOUR_EYES: z.enum(["on", "off"]).default("on"),
    /** How many reverse proxies in front of opledger append to X-Forwarded-For (sign-in throttling keys on the client). */
    OPLEDGER_TRUSTED_PROXIES: z.coerce.number().int("must be a whole number").min(0).max(10).default(0),
    /** Outbound requests (provider lookups, webhooks, MCP upstreams) may reach private, link-local and metadata addresses. */
    OPLEDGER_OUTBOUND_ALLOW_PRIVATE: z.enum(["on", "off"]).default("off"),
    /** A JSON file declaring the MCP upstreams behind the gateway (`/mcp`); read at start-up and when it changes. */
    OPLEDGER_MCP_UPSTREAMS: optionalText,
    /** A link template for the console's Trace links, such as https://jaeger.example/trace/{traceId}; none: ids to copy. */
    OPLEDGER_TRACE_URL: traceUrlTemplate,
    /** Ed25519 private key (PKCS#8 PEM, or its base64 DER) that signs checkpoints of the audit chain's head. */
    OPLEDGER_AUDIT_SIGNING_KEY: optionalText,
    /** A signed checkpoint is written after this many new audit events (and at least every interval below). */
    OPLEDGER_AUDIT_CHECKPOINT_EVERY: z.coerce.number().int().min(1).max(1_000_000).default(1000),
    OPLEDGER_AUDIT_CHECKPOINT_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(60_000),
    NEXTAUTH_SECRET: optionalText.pipe(z.string().min(32, "must be at least 32 characters").optional()),
    /** The console's public URL: sign-in callbacks, links in webhooks, and https (HSTS) when it starts with https://. */
    NEXTAUTH_URL: optionalHttpUrl,
    /** Optional single sign-on (lib/platform/auth/auth-options.ts): all three of issuer, client id and secret, or none. */
    OPLEDGER_OIDC_ISSUER: optionalHttpUrl,
    OPLEDGER_OIDC_CLIENT_ID: optionalText,
    OPLEDGER_OIDC_CLIENT_SECRET: optionalText,
    OPLEDGER_OIDC_NAME: optionalText,
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  })
  .superRefine((value, ctx) => {
    const set = OIDC_TRIO.filter((name) => value[name] !== undefined);
    if (set.length > 0 && set.length < OIDC_TRIO.length) {
      const missing = OIDC_TRIO.filter((name) => value[name] === undefined);
      ctx.addIssue({
        code: "custom",
        path: missing.slice(0, 1),
        message: `must be set with ${set.join(" and ")} (single sign-on needs all of ${OIDC_TRIO.join(", ")}, or none)`,
      });
    }
  });

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {
  override name = "EnvError";
}

/** Parses an environment; throws EnvError whose message names every bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
  throw new EnvError(`opledger cannot start: ${problems.join("; ")}.`);
}

let cached: Env | undefined;

/** The process environment, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
