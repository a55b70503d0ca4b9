// Next.js start-up hook: validates configuration and starts the recovery sweep when the server boots.
export async function register(): Promise<void> {
  // Next.js compiles this file for the Edge runtime too; that build drops this branch, so Node's APIs are safe in it.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { ensureStarted } = await import("@/lib/server/startup");
    try {
      await ensureStarted();
    } catch (error) {
      // One clear sentence and exit 1, not Next's stack trace around a half-started server.
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    }
  }
}
