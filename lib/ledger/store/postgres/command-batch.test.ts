// Commands flushed in the same event-loop turn share one statement; a failing batch answers each command by its own
// statement.
import { describe, expect, it } from "vitest";
import { CommandBatcher, commandsStatement, MAX_BATCH, type CommandWrites } from "./command-batch";
import type { Statement } from "../sql";

function command(id: string, version = 1): CommandWrites {
  return {
    writes: [{ sql: `UPDATE "Operation" SET "version" = ? WHERE "id" = ?`, params: [version + 1, id] }],
    checks: [{ sql: `(SELECT count(*) FROM "Dependency" WHERE "name" = ?)`, params: [`dep-${id}`] }],
    audit: [{ id: `event-${id}` }],
    targets: [`Operation ${id}`],
  };
}

/** A send that records the statements and fails those naming an id in `failing`. */
function recorder(failing: string[] = []) {
  const sent: { statement: Statement; alone: boolean }[] = [];
  const send = (statement: Statement, alone: boolean) => {
    sent.push({ statement, alone });
    const bad = failing.find((id) => statement.params.includes(id));
    return bad ? Promise.reject(new Error(`conflict on ${bad}`)) : Promise.resolve();
  };
  return { sent, batcher: new CommandBatcher(send) };
}

describe("commandsStatement", () => {
  it("puts one command's writes in CTEs, checks every count, and appends its audit events", () => {
    const statement = commandsStatement([command("a")])!;
    expect(statement.sql).toBe(
      `WITH w0 AS (UPDATE "Operation" SET "version" = ? WHERE "id" = ? RETURNING 1) ` +
        `SELECT opledger_expect_rows(ARRAY[(SELECT count(*) FROM w0), (SELECT count(*) FROM "Dependency" WHERE "name" = ?)]::bigint[]), ` +
        `opledger_append_audit(?::jsonb)`,
    );
    expect(statement.params).toEqual([2, "a", "dep-a", JSON.stringify([{ id: "event-a" }])]);
  });

  it("numbers several commands' writes on, keeps each value with its placeholder, and appends all events in order", () => {
    const statement = commandsStatement([command("a"), command("b", 5)])!;
    expect(statement.sql).toContain(`w1 AS (UPDATE "Operation" SET "version" = ? WHERE "id" = ? RETURNING 1)`);
    expect(statement.sql.match(/\?/g)).toHaveLength(statement.params.length);
    expect(statement.params).toEqual([
      2,
      "a",
      6,
      "b",
      "dep-a",
      "dep-b",
      JSON.stringify([{ id: "event-a" }, { id: "event-b" }]),
    ]);
  });

  it("counts a check that several commands need once, and different checks each", () => {
    const shared = { sql: `(SELECT count(*) FROM "Dependency" WHERE "name" = ?)`, params: ["breaker"] };
    const [a, b, c] = [command("a"), command("b"), command("c")];
    a.checks = [shared];
    b.checks = [{ ...shared }];
    c.checks = [{ ...shared, params: ["other"] }];
    const statement = commandsStatement([a, b, c])!;
    expect(statement.sql.match(/FROM "Dependency"/g)).toHaveLength(2);
    expect(statement.params.filter((p) => p === "breaker")).toHaveLength(1);
    expect(statement.params.filter((p) => p === "other")).toHaveLength(1);
  });

  it("writes the same text for the same commands in any order, with each value beside its placeholder", () => {
    const insert: CommandWrites = {
      writes: [{ sql: `INSERT INTO "Operation" ("id") VALUES (?)`, params: ["new"] }],
      checks: [],
      audit: [{ id: "event-new" }],
      targets: ["Operation new"],
    };
    const one = commandsStatement([command("a"), insert, command("b")])!;
    const other = commandsStatement([insert, command("b"), command("a")])!;
    expect(other.sql).toBe(one.sql);
    expect(one.params.slice(0, 1)).toEqual(["new"]);
    expect(other.params.slice(0, 1)).toEqual(["new"]);
  });

  it("is null when there is nothing to write", () => {
    expect(commandsStatement([{ writes: [], checks: [], audit: [], targets: [] }])).toBeNull();
  });
});

describe("CommandBatcher", () => {
  it("sends the commands of one event-loop turn as one statement, answering all once it succeeded", async () => {
    const { sent, batcher } = recorder();
    await Promise.all(["a", "b", "c"].map((id) => batcher.submit(command(id))));
    expect(sent.map((s) => s.alone)).toEqual([false]);
    expect(sent[0]!.statement.params).toEqual(expect.arrayContaining(["a", "b", "c"]));
  });

  it("sends a lone command as its own, preparable statement", async () => {
    const { sent, batcher } = recorder();
    await batcher.submit(command("a"));
    await batcher.submit(command("b"));
    expect(sent.map((s) => s.alone)).toEqual([true, true]);
  });

  it("answers each command of a failed batch by its own statement: the failing one fails, the others succeed", async () => {
    const { sent, batcher } = recorder(["b"]);
    const results = await Promise.allSettled(["a", "b", "c"].map((id) => batcher.submit(command(id))));
    expect(results.map((r) => (r.status === "fulfilled" ? "ok" : String(r.reason)))).toEqual([
      "ok",
      "Error: conflict on b",
      "ok",
    ]);
    expect(sent.map((s) => s.alone)).toEqual([false, true, true, true]);
  });

  it("never puts two writes of one row in one statement", async () => {
    const { sent, batcher } = recorder();
    await Promise.all([batcher.submit(command("a")), batcher.submit(command("a", 2)), batcher.submit(command("b"))]);
    expect(sent.map((s) => s.statement.params.filter((p) => p === "a").length)).toEqual([1, 1]);
  });

  it("sends a full batch at once and starts another", async () => {
    const { sent, batcher } = recorder();
    const ids = Array.from({ length: MAX_BATCH + 1 }, (_, i) => `op${i}`);
    const answers = ids.map((id) => batcher.submit(command(id)));
    expect(sent).toHaveLength(1);
    await Promise.all(answers);
    expect(sent.map((s) => s.alone)).toEqual([false, true]);
  });
});
