// The kill points exist only in a build made with OPLEDGER_TEST_HOOKS=1: bundled and minified as next build does (the
// flag inlined as a constant, next.config.js's `env`), a normal build keeps no trace of the kill.
import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

async function bundled(flag: "" | "1"): Promise<string> {
  const result = await build({
    entryPoints: [path.join(__dirname, "kill-point.ts")],
    bundle: true,
    minify: true,
    platform: "node",
    format: "esm",
    write: false,
    define: { "process.env.OPLEDGER_TEST_HOOKS": JSON.stringify(flag) },
  });
  return result.outputFiles[0]?.text ?? "";
}

describe("kill points", () => {
  it("are dropped from a build without OPLEDGER_TEST_HOOKS", async () => {
    const code = await bundled("");
    for (const trace of ["killed at", "SIGKILL", "OPLEDGER_KILL_AT", "after_commit:"]) {
      expect(code, trace).not.toContain(trace);
    }
  });

  it("are in a build with OPLEDGER_TEST_HOOKS=1", async () => {
    const code = await bundled("1");
    for (const trace of ["killed at", "SIGKILL", "OPLEDGER_KILL_AT", "after_commit:"]) {
      expect(code, trace).toContain(trace);
    }
  });
});
