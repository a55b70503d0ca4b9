// What the migrator applies, given the folder and the `_prisma_migrations` rows: Prisma's rules, plus a refusal of
// edited migrations.
import { describe, expect, it } from "vitest";
import { checksumOf, MigrationError, scriptMatchesChecksum, type LocalMigration } from "./migrations-folder";
import { planMigrations, type MigrationRow } from "./plan";

const local = (name: string, script = `-- ${name}\nSELECT 1;\n`): LocalMigration => ({
  name,
  script,
  checksum: checksumOf(script),
});
const A = local("20260101000000_a");
const B = local("20260102000000_b");
const C = local("20260103000000_c");
const T = new Date("2026-11-30T12:00:00Z");
const row = (m: LocalMigration, over: Partial<MigrationRow> = {}): MigrationRow => ({
  migration_name: m.name,
  checksum: m.checksum,
  finished_at: T,
  rolled_back_at: null,
  ...over,
});

describe("planMigrations", () => {
  it.each([
    { case: "fresh database", rows: [], pending: [A, B, C], applied: [] },
    { case: "partly applied", rows: [row(A)], pending: [B, C], applied: [A.name] },
    { case: "all applied", rows: [row(A), row(B), row(C)], pending: [], applied: [A.name, B.name, C.name] },
    { case: "a gap (merged branch) is filled", rows: [row(A), row(C)], pending: [B], applied: [A.name, C.name] },
    {
      case: "a rolled-back migration is applied again",
      rows: [row(A), row(B, { rolled_back_at: T })],
      pending: [B, C],
      applied: [A.name],
    },
    {
      case: "rolled back, then re-applied",
      rows: [row(A), row(B, { rolled_back_at: T }), row(B)],
      pending: [C],
      applied: [A.name, B.name],
    },
  ])("$case", ({ rows, pending, applied }) => {
    const plan = planMigrations([A, B, C], rows);
    expect(plan.pending.map((m) => m.name)).toEqual(pending.map((m) => m.name));
    expect(plan.applied).toEqual(applied);
    expect(plan.unknown).toEqual([]);
  });

  it("reports migrations the database has and the folder lacks (an older build) without refusing", () => {
    const plan = planMigrations([A], [row(A), row(B)]);
    expect(plan).toMatchObject({ pending: [], applied: [A.name], unknown: [B.name] });
  });

  it("refuses a migration edited after it was applied", () => {
    expect(() => planMigrations([A, B], [row(A, { checksum: checksumOf("something else") })])).toThrow(
      new MigrationError(
        `The migration ${A.name} was modified after it was applied (checksum ${A.checksum}, recorded ` +
          `${checksumOf("something else")}); restore the original file and add a new migration for the change.`,
      ),
    );
  });

  it("refuses to continue after a half-applied migration, as prisma migrate deploy does (P3009)", () => {
    expect(() => planMigrations([A, B], [row(A), row(B, { finished_at: null })])).toThrow(
      /20260102000000_b failed earlier/,
    );
  });
});

describe("checksums", () => {
  it("is sha256 hex of the script's bytes", () => {
    expect(checksumOf("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("accepts a checkout whose line endings were converted either way", () => {
    const unix = "CREATE TABLE a ();\nCREATE TABLE b ();\n";
    const windows = unix.replace(/\n/g, "\r\n");
    expect(scriptMatchesChecksum(windows, checksumOf(unix))).toBe(true);
    expect(scriptMatchesChecksum(unix, checksumOf(windows))).toBe(true);
    expect(scriptMatchesChecksum(`${unix}-- edited\n`, checksumOf(unix))).toBe(false);
  });
});
