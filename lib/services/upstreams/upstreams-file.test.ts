// The upstreams file: good files parse, and each kind of mistake comes back as one sentence naming the upstream and
// the field (secret names, the outbound rules for url upstreams, unknown keys, bad JSON, a missing file).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseUpstreamsText, readUpstreamsFile } from "./upstreams-file";

const environment = {
  OPLEDGER_SECRET_FS: "fs-token",
  OPLEDGER_SECRET_BILLING: "Bearer billing-token",
  OPLEDGER_SECRET_BOUND: "Bearer bound-token",
  OPLEDGER_SECRET_BOUND_HOSTS: "billing.example.com",
  DATABASE_URL: "file:/tmp/x.db",
};

function parse(upstreams: unknown) {
  return parseUpstreamsText(JSON.stringify({ upstreams }), "/etc/opledger/upstreams.json", environment);
}

function problems(upstreams: unknown): string[] {
  const result = parse(upstreams);
  return result.ok ? [] : result.problems;
}

describe("parseUpstreamsText", () => {
  it("reads command and url upstreams, with defaults and a cwd relative to the file", () => {
    const result = parse({
      fs: { command: "node", args: ["server.js", "/srv"], env: { TOKEN: "OPLEDGER_SECRET_FS" }, cwd: "mcp" },
      billing: { url: "https://billing.example.com/mcp", headers: { Authorization: "OPLEDGER_SECRET_BOUND" } },
      local: { url: "http://127.0.0.1:8080/mcp", headers: { authorization: "OPLEDGER_SECRET_BILLING" } },
      bare: { command: "mcp-server" },
    });
    expect(result).toEqual({
      ok: true,
      config: {
        upstreams: {
          fs: {
            kind: "command",
            command: "node",
            args: ["server.js", "/srv"],
            env: { TOKEN: "OPLEDGER_SECRET_FS" },
            cwd: "/etc/opledger/mcp",
          },
          billing: {
            kind: "url",
            url: "https://billing.example.com/mcp",
            headers: { authorization: "OPLEDGER_SECRET_BOUND" },
          },
          local: {
            kind: "url",
            url: "http://127.0.0.1:8080/mcp",
            headers: { authorization: "OPLEDGER_SECRET_BILLING" },
          },
          bare: { kind: "command", command: "mcp-server", args: [], env: {}, cwd: null },
        },
      },
    });
  });

  it("accepts a file with no upstreams", () => {
    expect(parse({})).toEqual({ ok: true, config: { upstreams: {} } });
  });

  it.each<[string, unknown, RegExp]>([
    [
      "a variable that is not a secret",
      { fs: { command: "node", env: { TOKEN: "DATABASE_URL" } } },
      /^Upstream "fs": env\.TOKEN must name an OPLEDGER_SECRET_\* variable, not "DATABASE_URL"\.$/,
    ],
    [
      "a _HOSTS binding named as a secret",
      { fs: { command: "node", env: { TOKEN: "OPLEDGER_SECRET_BOUND_HOSTS" } } },
      /^Upstream "fs": env\.TOKEN must name an OPLEDGER_SECRET_\* variable, not "OPLEDGER_SECRET_BOUND_HOSTS"\.$/,
    ],
    [
      "a secret that is not set",
      { fs: { command: "node", env: { TOKEN: "OPLEDGER_SECRET_NOPE" } } },
      /^Upstream "fs": env\.TOKEN names OPLEDGER_SECRET_NOPE, which is not set in the server's environment\.$/,
    ],
    [
      "a header naming a non-secret",
      { billing: { url: "https://billing.example.com/mcp", headers: { authorization: "NEXTAUTH_SECRET" } } },
      /^Upstream "billing": headers\.authorization must name an OPLEDGER_SECRET_\* variable, not "NEXTAUTH_SECRET"\.$/,
    ],
    [
      "a secret over plain http to a host that is not loopback",
      { billing: { url: "http://billing.example.com/mcp", headers: { authorization: "OPLEDGER_SECRET_BILLING" } } },
      /^Upstream "billing": headers\.authorization sends OPLEDGER_SECRET_BILLING, and a secret goes only over https/,
    ],
    [
      "a secret bound to other hosts",
      { billing: { url: "https://evil.example.net/mcp", headers: { authorization: "OPLEDGER_SECRET_BOUND" } } },
      new RegExp(
        String.raw`^Upstream "billing": headers\.authorization: OPLEDGER_SECRET_BOUND may only be sent to ` +
          String.raw`billing\.example\.com; this request goes to evil\.example\.net\.$`,
      ),
    ],
    [
      "a url that is not http",
      { f: { url: "file:///etc/passwd" } },
      /^Upstream "f": url must be http or https, not file\.$/,
    ],
    ["a url that is not a url", { f: { url: "billing" } }, /^Upstream "f": url "billing" is not an absolute URL\.$/],
    [
      "credentials in the url",
      { f: { url: "https://user:pw@example.com/mcp" } },
      /^Upstream "f": url carries a user name or password/,
    ],
    [
      "a transport header",
      { f: { url: "https://example.com/mcp", headers: { "mcp-session-id": "OPLEDGER_SECRET_FS" } } },
      /^Upstream "f": headers\.mcp-session-id is set by the transport itself/,
    ],
    ["a bad name", { FS: { command: "node" } }, /^Upstream "FS": the name must be 1 to 32 lower-case letters/],
    ["a name with __", { a__b: { command: "node" } }, /^Upstream "a__b": the name must be/],
    [
      "neither command nor url",
      { fs: { args: [] } },
      /^Upstream "fs": must have either "command" \(started over stdio\) or "url" \(Streamable HTTP\)\.$/,
    ],
    ["both command and url", { fs: { command: "node", url: "https://x.example" } }, /, not both\.$/],
    [
      "an unknown key",
      { fs: { command: "node", argv: [] } },
      /^Upstream "fs": unknown key "argv" \(a command upstream has command, args, env, cwd\)\.$/,
    ],
    [
      "args that are not strings",
      { fs: { command: "node", args: ["a", 2] } },
      /^Upstream "fs": args\[1\] must be text\.$/,
    ],
    ["an empty command", { fs: { command: " " } }, /^Upstream "fs": command must not be empty\.$/],
    [
      "a child variable name that is not one",
      { fs: { command: "node", env: { "A-B": "OPLEDGER_SECRET_FS" } } },
      /^Upstream "fs": env\.A-B is not a valid environment variable name\.$/,
    ],
  ])("refuses %s with one sentence", (_name, upstreams, sentence) => {
    const found = problems(upstreams);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(sentence);
  });

  it("reports every problem, one sentence each", () => {
    expect(
      problems({
        a: { command: "node", env: { X: "PATH" } },
        b: { url: "ftp://x" },
      }),
    ).toHaveLength(2);
  });

  it("names bad JSON, a wrong top level and unknown top-level keys", () => {
    expect(parseUpstreamsText("{", "u.json", environment)).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^u\.json is not valid JSON: .*\.$/)],
    });
    expect(parseUpstreamsText("[]", "u.json", environment)).toEqual({
      ok: false,
      problems: ['u.json must hold an object with "upstreams".'],
    });
    expect(parseUpstreamsText('{"upstreams":{},"extra":1}', "u.json", environment)).toEqual({
      ok: false,
      problems: ['u.json: unknown key "extra" (the file has only "upstreams").'],
    });
    expect(parseUpstreamsText('{"upstreams":[]}', "u.json", environment)).toEqual({
      ok: false,
      problems: ["u.json: upstreams must be an object of upstreams by name."],
    });
  });
});

describe("readUpstreamsFile", () => {
  it("reads a file, and names one it cannot read", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-upstreams-"));
    const file = path.join(dir, "upstreams.json");
    fs.writeFileSync(file, JSON.stringify({ upstreams: { fs: { command: "node" } } }));
    expect(readUpstreamsFile(file, environment)).toMatchObject({ ok: true });
    expect(readUpstreamsFile(path.join(dir, "missing.json"), environment)).toEqual({
      ok: false,
      problems: [`The upstreams file ${path.join(dir, "missing.json")} cannot be read (ENOENT).`],
    });
    fs.rmSync(dir, { recursive: true });
  });
});
