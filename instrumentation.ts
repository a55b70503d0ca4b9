// Next.js start-up hook: validates configuration and starts the recovery sweep when the server boots.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { ensureStarted } = await import("@/lib/server/startup");
  try {
    await ensureStarted();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
