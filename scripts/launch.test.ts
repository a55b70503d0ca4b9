// Where the server listens by default (loopback) and when start-up warns that it is reachable over plain http.
import { describe, expect, it } from "vitest";
import { exposureWarning, isLoopbackHost, listenHost } from "./launch";

describe("listenHost", () => {
  it("is 127.0.0.1 unless HOSTNAME says otherwise", () => {
    expect(listenHost({ HOSTNAME: undefined })).toBe("127.0.0.1");
    expect(listenHost({ HOSTNAME: "0.0.0.0" })).toBe("0.0.0.0");
  });
});

describe("isLoopbackHost", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "::1",
    "[::1]",
    "localhost",
    "LOCALHOST",
    "console.localhost",
    "::ffff:127.0.0.1",
  ])("%s is loopback", (host) => expect(isLoopbackHost(host)).toBe(true));
  it.each(["0.0.0.0", "::", "[::]", "10.0.0.5", "192.168.1.2", "example.com", "opledger.internal", "fe80::1"])(
    "%s is not",
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );
});

describe("exposureWarning", () => {
  it("warns, in one line, when a non-loopback address is bound without an https public URL", () => {
    const warning = exposureWarning("0.0.0.0", "http://0.0.0.0:3000");
    expect(warning).toMatch(/^opledger: warning: listening on every network interface \(HOSTNAME=0\.0\.0\.0\)/);
    expect(warning).toMatch(/NEXTAUTH_URL=https:/);
    expect(warning).not.toMatch(/\n/);
    expect(exposureWarning("10.0.0.5", "http://opledger.example:3000")).toMatch(
      /listening on 10\.0\.0\.5 over plain http/,
    );
  });

  it("stays silent on loopback, and behind an https public URL", () => {
    expect(exposureWarning("127.0.0.1", "http://localhost:3000")).toBeNull();
    expect(exposureWarning("::1", "http://[::1]:3000")).toBeNull();
    expect(exposureWarning("0.0.0.0", "https://opledger.example")).toBeNull();
    expect(exposureWarning("0.0.0.0", "HTTPS://opledger.example")).toBeNull();
  });
});
