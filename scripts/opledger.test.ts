// The opledger CLI as an operator runs it (a child process on a test database): audit-keygen, verify-audit against
// signed checkpoints and a saved head, and create-api-key binding operator and admin keys to a person.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUser } from "@/lib/platform/auth/users";
import { checkpointHead } from "@/lib/ledger/audit/checkpoint";
import { parseSigningKey, parseVerifyingKey } from "@/lib/ledger/audit/signing-key";
import { rewriteAuditChain } from "@/tests/helpers/audit-tamper";
import { alice, at, withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";

const ROOT = path.resolve(__dirname, "..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run opledger -- ...args` without npm, on the given database. */
async function opledger(args: string[], databaseUrl: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production" };
  for (const name of Object.keys(env)) if (name.startsWith("OPLEDGER_AUDIT_")) delete env[name];
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [path.join(ROOT, "scripts", "opledger.ts"), ...args], {
      cwd: ROOT,
      env,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** The exit code, and what the run said on one of its streams (the other stream is shown when the code differs). */
function expectRun(run: Run, code: number, stream: "stdout" | "stderr", said: RegExp): void {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(code);
  expect(run[stream]).toMatch(said);
}

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-cli-"));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Nothing at this URL: a command that touched the database would fail on it. */
const NO_DATABASE = () => `file:${path.join(tmp, "no-such-dir", "never.db")}`;

describe("audit-keygen", () => {
  it("prints a key pair that reads back, without any database", { timeout: 120_000 }, async () => {
    const run = await opledger(["audit-keygen"], NO_DATABASE());
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const privateLine = /^OPLEDGER_AUDIT_SIGNING_KEY=(\S+)$/m.exec(run.stdout)?.[1];
    const keyId = /^key id ([0-9a-f]{64})$/m.exec(run.stdout)?.[1];
    const publicLine = run.stdout
      .split("\n")
      .find((line) => /^[A-Za-z0-9+/=]{40,}$/.test(line) && !line.startsWith("OPLEDGER"));
    expect(parseSigningKey(privateLine ?? "").keyId).toBe(keyId);
    expect(parseVerifyingKey(publicLine ?? "").keyId).toBe(keyId);
    expect(fs.existsSync(path.join(tmp, "no-such-dir"))).toBe(false);
  });

  it(
    "with --out, writes the private key 0600 in a 0700 directory, and never overwrites",
    { timeout: 120_000 },
    async () => {
      const dir = path.join(tmp, "keys");
      const run = await opledger(["audit-keygen", "--out", dir], NO_DATABASE());
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(/PRIVATE KEY|OPLEDGER_AUDIT_SIGNING_KEY=/);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      const privateFile = path.join(dir, "audit-signing-key.pem");
      expect(fs.statSync(privateFile).mode & 0o777).toBe(0o600);
      const signing = parseSigningKey(fs.readFileSync(privateFile, "utf8"));
      expect(parseVerifyingKey(fs.readFileSync(path.join(dir, "audit-signing-key.pub.pem"), "utf8")).keyId).toBe(
        signing.keyId,
      );
      const again = await opledger(["audit-keygen", "--out", dir], NO_DATABASE());
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/exists already: audit-keygen never overwrites a key/);
      expect(parseSigningKey(fs.readFileSync(privateFile, "utf8")).keyId).toBe(signing.keyId);
    },
  );
});

describe("on a database", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await createTestDb();
  });
  afterEach(async () => t.close());

  it(
    "verify-audit --public-key fails a chain rewritten in the database that plain verify-audit accepts",
    { timeout: 300_000 },
    async () => {
      const keys = await opledger(["audit-keygen", "--out", path.join(tmp, "keys")], NO_DATABASE());
      expect(keys.code).toBe(0);
      const key = parseSigningKey(fs.readFileSync(path.join(tmp, "keys", "audit-signing-key.pem"), "utf8"));
      const publicFile = path.join(tmp, "keys", "audit-signing-key.pub.pem");

      const none = await opledger(["verify-audit", "--public-key", publicFile], t.url);
      expectRun(none, 0, "stderr", /^warning: there are no signed checkpoints/m);
      const required = await opledger(["verify-audit", "--public-key", publicFile, "--require-checkpoint"], t.url);
      expectRun(required, 1, "stderr", /- there are no signed checkpoints/);

      for (const tool of ["a.one", "a.two"]) await withContract(t.ledger, tool, "PURE");
      const checkpoint = (await checkpointHead(t.ledger, key, { every: 1, intervalMs: 1000 }, at(1))).written;
      if (!checkpoint) throw new Error("expected a checkpoint");
      await withContract(t.ledger, "a.three", "PURE");

      const intact = await opledger(
        ["verify-audit", "--public-key", publicFile, "--expect-head", `${checkpoint.seq}:${checkpoint.hash}`],
        t.url,
      );
      expect(intact).toMatchObject({ code: 0, stderr: "" });
      expect(intact.stdout).toMatch(new RegExp(`signed checkpoints: 1 checked, .* newest ${checkpoint.seq} `));

      await rewriteAuditChain(t.db, t.engine, 1, "nothing to see here");
      const plain = await opledger(["verify-audit"], t.url);
      expectRun(plain, 0, "stdout", /^audit chain intact/m);

      const publicBase64 = parseVerifyingKey(fs.readFileSync(publicFile, "utf8"))
        .publicKey.export({ type: "spki", format: "der" })
        .toString("base64");
      // One run, both anchors: each names what it caught.
      const anchored = await opledger(
        ["verify-audit", "--public-key", publicBase64, "--expect-head", checkpoint.hash],
        t.url,
      );
      expect(anchored.code).toBe(1);
      expect(anchored.stderr).toMatch(/^audit chain BROKEN/);
      expect(anchored.stderr).toMatch(/- the expected head [0-9a-f]{12}… is not in the chain/);
      expect(anchored.stderr).toMatch(new RegExp(`- checkpoint ${checkpoint.seq} was signed for hash .* rewritten`));
    },
  );

  it("verify-audit refuses malformed options before it opens the database", { timeout: 120_000 }, async () => {
    for (const args of [["--public-key", "not-a-key"], ["--expect-head", "abc"], ["--require-checkpoint"]]) {
      const run = await opledger(["verify-audit", ...args], NO_DATABASE());
      expect(run.code).toBe(2);
      expect(run.stderr.split("\n")[0]).toMatch(/^--(public-key|expect-head|require-checkpoint) /);
    }
  });

  it("create-api-key binds operator and admin keys to a person given by --owner", { timeout: 300_000 }, async () => {
    const password = "a long password";
    await createUser(t.ledger, { email: "olga@example.test", name: "Olga", role: "operator", password }, alice, at(0));
    await createUser(t.ledger, { email: "vic@example.test", name: "Vic", role: "viewer", password }, alice, at(0));

    const unbound = await opledger(["create-api-key", "--name", "ops", "--scopes", "operator"], t.url);
    expect(unbound.code).toBe(2);
    expect(unbound.stderr.split("\n")[0]).toBe(
      "--owner EMAIL is required with the operator and admin scopes: such a key acts as that person",
    );
    const agentWithOwner = await opledger(
      ["create-api-key", "--name", "bot", "--scopes", "agent", "--owner", "olga@example.test"],
      t.url,
    );
    expect(agentWithOwner.code).toBe(2);
    const nobody = await opledger(
      ["create-api-key", "--name", "ops", "--scopes", "operator", "--owner", "nobody@example.test"],
      t.url,
    );
    expectRun(nobody, 1, "stderr", /^There is no user nobody@example.test: create them first/);
    const viewer = await opledger(
      ["create-api-key", "--name", "ops", "--scopes", "operator", "--owner", "vic@example.test"],
      t.url,
    );
    expectRun(viewer, 1, "stderr", /operator-scope key must belong to an operator or an admin/);

    const bound = await opledger(
      ["create-api-key", "--name", "ops", "--scopes", "operator", "--owner", "Olga@example.test"],
      t.url,
    );
    expect(bound.code).toBe(0);
    const id = /created API key (\S+) "ops" with scopes operator for olga@example.test/.exec(bound.stdout)?.[1];
    expect(/^ {2}(opl_\S+)\s*$/m.exec(bound.stdout)?.[1]).toBeTruthy();
    const olga = await t.db.user.findUniqueOrThrow({ where: { email: "olga@example.test" } });
    expect(await t.db.apiKey.findUniqueOrThrow({ where: { id } })).toMatchObject({ ownerUserId: olga.id });

    const metrics = await opledger(["create-api-key", "--name", "scraper", "--scopes", "metrics"], t.url);
    expect(metrics.code).toBe(0);
    expect(await t.db.apiKey.findFirstOrThrow({ where: { name: "scraper" } })).toMatchObject({ ownerUserId: null });
  });
});
