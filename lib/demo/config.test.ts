// The demo's settings: a server port that is also the providers' port is refused before anything starts.
import { describe, expect, it } from "vitest";
import { DEFAULT_PROVIDER_PORT, demoEnv, demoPortClash } from "./config";

describe("demoPortClash", () => {
  it("names both variables when the server would take the providers' default port", () => {
    const clash = demoPortClash(DEFAULT_PROVIDER_PORT, demoEnv({}));
    expect(clash).toContain(`PORT ${DEFAULT_PROVIDER_PORT}`);
    expect(clash).toContain("OPLEDGER_DEMO_PROVIDER_PORT");
    expect(clash).toContain("OPLEDGER_DEMO=off");
  });

  it("follows a provider port the operator moved", () => {
    const moved = demoEnv({ OPLEDGER_DEMO_PROVIDER_PORT: "4100" });
    expect(demoPortClash(DEFAULT_PROVIDER_PORT, moved)).toBeNull();
    expect(demoPortClash(4100, moved)).toContain("PORT 4100");
  });

  it("lets two different ports start", () => {
    expect(demoPortClash(3000, demoEnv({}))).toBeNull();
  });
});
