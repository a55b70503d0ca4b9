// Next.js start-up hook: starts tracing when OpenTelemetry's variables configure it (lib/platform/telemetry), validates
// configuration, starts the recovery sweep, and registers the agent plane (/api/v1, /mcp, the probes: lib/agent-plane)
// for scripts/next-server.mjs to serve before Next.js's handler.
export async function register(): Promise<void> {
  // Next.js compiles this file for the Edge runtime too; that build drops this branch, so Node's APIs are safe in it.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startTracing } = await import("@/lib/platform/telemetry/start-tracing");
    const { ensureStarted } = await import("@/lib/platform/server/startup");
    const { registerAgentPlane } = await import("@/lib/agent-plane/register");
    try {
      // Before anything else runs, so the sweep's first pass is traced too; the SDK is loaded only when configured.
      await startTracing();
      await ensureStarted();
    } catch (error) {
      // One clear sentence and exit 1, not Next's stack trace around a half-started server.
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    }
    registerAgentPlane();
  }
}
