// Operation commands' writes on PostgreSQL, several commands to one statement: those flushed in the same event-loop
// turn share one round trip, one audit append and one commit.
import type { Statement } from "../sql";

/** One command's writes, as parts of a statement. */
export interface CommandWrites {
  /** Conditional writes: each must change exactly one row. */
  writes: Statement[];
  /** Counts that must be 1: the rows the command took from memory are still at the version it saw. */
  checks: Statement[];
  /** The command's audit events, as opledger_append_audit reads them. */
  audit: object[];
  /** The rows it writes ("Operation <id>"): no two commands of one statement write the same row. */
  targets: string[];
}

/** What a command's part of a statement looks like, values aside: commands of one shape write the same text. */
function shapeOf(command: CommandWrites): string {
  return [...command.writes, ...command.checks].map((statement) => statement.sql).join("\n");
}

/**
 * The statement for one or several commands: their writes as CTEs, every write's and check's count handed to
 * opledger_expect_rows (one wrong count aborts the whole statement), then every command's audit events appended in
 * order by opledger_append_audit, which locks the chain's head for this statement only. Null when nothing is written.
 * The commands go in grouped by shape, so that batches of the same commands have the same text whatever order they
 * came in (postgres-store.ts prepares a text that recurs); they ran concurrently, so any order is one they could have
 * committed in. A check that several commands need (the breaker or the contract head they all relied on) is counted
 * once: every part of one statement sees the same rows.
 */
export function commandsStatement(commands: CommandWrites[]): Statement | null {
  const ordered =
    commands.length > 1
      ? commands
          .map((command) => ({ command, shape: shapeOf(command) }))
          .sort((a, b) => (a.shape < b.shape ? -1 : a.shape > b.shape ? 1 : 0))
          .map(({ command }) => command)
      : commands;
  const ctes: string[] = [];
  const counts: string[] = [];
  const params: unknown[] = [];
  for (const command of ordered) {
    for (const write of command.writes) {
      const name = `w${ctes.length}`;
      ctes.push(`${name} AS (${write.sql} RETURNING 1)`);
      counts.push(`(SELECT count(*) FROM ${name})`);
      params.push(...write.params);
    }
  }
  const checked = new Set<string>();
  for (const command of ordered) {
    for (const check of command.checks) {
      const key = `${check.sql}\u0000${check.params.join("\u0000")}`;
      if (checked.has(key)) continue;
      checked.add(key);
      counts.push(check.sql);
      params.push(...check.params);
    }
  }
  const selects = counts.length > 0 ? [`opledger_expect_rows(ARRAY[${counts.join(", ")}]::bigint[])`] : [];
  const audit = ordered.flatMap((command) => command.audit);
  if (audit.length > 0) {
    selects.push("opledger_append_audit(?::jsonb)");
    params.push(JSON.stringify(audit));
  }
  if (selects.length === 0) return null;
  return { sql: `${ctes.length > 0 ? `WITH ${ctes.join(", ")} ` : ""}SELECT ${selects.join(", ")}`, params };
}

/** Sends a statement; `alone` when it carries one command's writes (its text then recurs and is worth preparing). */
export type SendStatement = (statement: Statement, alone: boolean) => Promise<void>;

interface Batch {
  commands: CommandWrites[];
  targets: Set<string>;
  answers: { resolve: () => void; reject: (error: unknown) => void }[];
}

/**
 * Most commands in one statement; a full batch goes out at once. Every statement takes the audit chain's head lock and
 * holds it until its commit is on disk, so on a durable server each statement costs one WAL flush that no other
 * statement can share: the commands of a turn are best sent together. Measured with 16 agents on a durable cluster
 * (2026-12-02): 8 made two statements and two WAL flushes per turn, 16 one (0.50 to 0.25 commits per lifecycle) and
 * ~25% less server CPU per lifecycle; the rate itself was within the noise of a machine at load 15.
 */
export const MAX_BATCH = 16;

/**
 * Collects the commands flushed during one event-loop turn (at most MAX_BATCH) and sends them together: one round
 * trip, one audit append and one commit instead of one each. Nobody is answered before their statement committed.
 * If a batch of several fails (a moved version, a duplicate key, a lost connection), PostgreSQL applied none of it,
 * and each command is sent again alone, so each gets the answer it would have got without batching (had the
 * connection broken after the commit, the command's own statement finds its rows moved or its ids taken, and fails
 * rather than writing twice). Two commands writing the same row never share a statement (PostgreSQL would apply only
 * one of the two writes).
 */
export class CommandBatcher {
  #pending: Batch[] = [];
  #scheduled = false;

  constructor(private readonly send: SendStatement) {}

  submit(command: CommandWrites): Promise<void> {
    return new Promise((resolve, reject) => {
      let batch = this.#pending.find(
        (b) => b.commands.length < MAX_BATCH && command.targets.every((target) => !b.targets.has(target)),
      );
      if (!batch) {
        batch = { commands: [], targets: new Set(), answers: [] };
        this.#pending.push(batch);
      }
      batch.commands.push(command);
      for (const target of command.targets) batch.targets.add(target);
      batch.answers.push({ resolve, reject });
      if (batch.commands.length === MAX_BATCH) {
        this.#pending.splice(this.#pending.indexOf(batch), 1);
        void this.#sendBatch(batch);
        return;
      }
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#drain());
      }
    });
  }

  #drain(): void {
    this.#scheduled = false;
    for (const batch of this.#pending.splice(0)) void this.#sendBatch(batch);
  }

  async #sendBatch({ commands, answers }: Batch): Promise<void> {
    if (commands.length > 1) {
      try {
        await this.send(commandsStatement(commands)!, false);
        for (const answer of answers) answer.resolve();
        return;
      } catch {
        // Nothing of the batch was written: each command is decided by its own statement below.
      }
    }
    await Promise.all(commands.map((command, i) => this.#sendAlone(command, answers[i]!)));
  }

  async #sendAlone(command: CommandWrites, answer: Batch["answers"][number]): Promise<void> {
    try {
      const statement = commandsStatement([command]);
      if (statement) await this.send(statement, true);
      answer.resolve();
    } catch (error) {
      answer.reject(error);
    }
  }
}
