// An unconfigured server pays nothing for tracing: startTracing loads none of the SDK, and a span helper runs its work
// bare with a span that records nothing. The same check with tracing configured shows the SDK loaded, so it can fail.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NO_SPAN, inSpan } from "./spans";
import { startTracing, tracingOn } from "./start-tracing";

const ROOT = path.resolve(__dirname, "../../..");
/** Starts tracing in a fresh Node process with `env` and prints the OpenTelemetry SDK modules it then holds. */
const PROBE = `
const { startTracing } = require("./lib/platform/telemetry/start-tracing.ts");
startTracing(process.env).then((on) => {
  const sdk = Object.keys(require.cache).filter((f) => /@opentelemetry\\/(sdk-|exporter-|resources|otlp-)/.test(f));
  console.log(JSON.stringify({ on, sdk: sdk.length }));
  process.exit(0);
});`;

function probe(env: Record<string, string>): { on: boolean; sdk: number } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
  const out = execFileSync(process.execPath, ["--import", "tsx", "-e", PROBE], {
    cwd: ROOT,
    env: { ...clean, ...env } as NodeJS.ProcessEnv,
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").at(-1)!) as { on: boolean; sdk: number };
}

describe("tracing unconfigured", () => {
  it("starts nothing and runs a span helper's work bare", async () => {
    expect(await startTracing({})).toBe(false);
    expect(tracingOn()).toBe(false);
    expect(await inSpan("opledger plan", {}, (span) => Promise.resolve(span))).toBe(NO_SPAN);
    expect(NO_SPAN.isRecording()).toBe(false);
  });

  it("loads no module of the SDK in a process without the variables, and loads it with them", () => {
    expect(probe({})).toEqual({ on: false, sdk: 0 });
    const traced = probe({ OTEL_TRACES_EXPORTER: "console" });
    expect(traced.on).toBe(true);
    expect(traced.sdk).toBeGreaterThan(5);
  }, 60_000);
});
