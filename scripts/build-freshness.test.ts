// npm start and the benchmarks serve a build only when it is fresh and is a production build: a build made by npm test
// with the test-only hooks compiled in is rebuilt, however new it is.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildHasTestHooks, buildIsFresh } from "./build-freshness";

let dist: string;
beforeEach(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-dist-"));
});
afterEach(() => fs.rmSync(dist, { recursive: true, force: true }));

/** A build as next build leaves it: BUILD_ID (newer than every source) and the config it was made with. */
function build(env: Record<string, string>): void {
  fs.writeFileSync(path.join(dist, "required-server-files.json"), JSON.stringify({ version: 1, config: { env } }));
  fs.writeFileSync(path.join(dist, "BUILD_ID"), "test");
  const future = new Date(Date.now() + 3_600_000);
  fs.utimesSync(path.join(dist, "BUILD_ID"), future, future);
}

describe("buildIsFresh", () => {
  it("takes a new production build", () => {
    build({ OPLEDGER_TEST_HOOKS: "" });
    expect(buildHasTestHooks(dist)).toBe(false);
    expect(buildIsFresh(dist)).toBe(true);
  });

  it("refuses a build with the test-only hooks, however new", () => {
    build({ OPLEDGER_TEST_HOOKS: "1" });
    expect(buildHasTestHooks(dist)).toBe(true);
    expect(buildIsFresh(dist)).toBe(false);
  });

  it("refuses a missing build", () => {
    expect(buildIsFresh(dist)).toBe(false);
  });
});
