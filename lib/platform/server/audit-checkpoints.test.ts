// The server's checkpoint timer: starts only with a usable key, stops start-up with one sentence on a bad one, and
// never logs the key.
import { describe, expect, it, vi } from "vitest";
import { generateSigningKey, parseSigningKey } from "@/lib/ledger/audit/signing-key";
import { withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb } from "@/tests/helpers/test-db";
import { checkpointOnce, startAuditCheckpoints } from "./audit-checkpoints";

const made = generateSigningKey();
const key = parseSigningKey(made.privateKeyBase64);
const T = new Date("2026-12-01T10:00:00.000Z");
const config = { OPLEDGER_AUDIT_CHECKPOINT_EVERY: 1000, OPLEDGER_AUDIT_CHECKPOINT_INTERVAL_MS: 60_000 };

it("logs the checkpoint it wrote, never the key", async () => {
  const t = await createTestDb();
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    await withContract(t.ledger, "tool.one", "PURE");
    await checkpointOnce(t.ledger, key, { every: 1000, intervalMs: 60_000 }, () => T);
    const lines = log.mock.calls.map((args) => args.join(" "));
    expect(lines).toEqual([expect.stringMatching(/^opledger: signed audit checkpoint 1:[0-9a-f]{64} at /)]);
    expect(lines.join("\n")).not.toContain(made.privateKeyBase64.slice(20, 60));
  } finally {
    log.mockRestore();
    await t.close();
  }
});

describe("the server's timer", () => {
  it("does not start without a key", async () => {
    const t = await createTestDb();
    try {
      expect(startAuditCheckpoints(t.ledger, { ...config, OPLEDGER_AUDIT_SIGNING_KEY: undefined })).toBeNull();
    } finally {
      await t.close();
    }
  });

  it("stops start-up with one sentence when the key is malformed, without repeating it", async () => {
    const t = await createTestDb();
    try {
      const malformed = made.publicKeyBase64;
      expect(() => startAuditCheckpoints(t.ledger, { ...config, OPLEDGER_AUDIT_SIGNING_KEY: malformed })).toThrow(
        /^OPLEDGER_AUDIT_SIGNING_KEY is not an Ed25519 private key: give the PKCS#8 PEM or its base64 DER/,
      );
    } finally {
      await t.close();
    }
  });

  it("starts with a key, saying which one by its id only", async () => {
    const t = await createTestDb();
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const stop = startAuditCheckpoints(t.ledger, { ...config, OPLEDGER_AUDIT_SIGNING_KEY: made.privateKeyPem });
      expect(stop).toBeTypeOf("function");
      stop?.();
      const said = log.mock.calls.map((args) => args.join(" ")).join("\n");
      expect(said).toContain(made.keyId.slice(0, 16));
      expect(said).not.toContain(made.privateKeyBase64.slice(20, 60));
    } finally {
      log.mockRestore();
      await t.close();
    }
  });
});
