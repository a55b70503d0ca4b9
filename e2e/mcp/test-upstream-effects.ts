// The test upstream's durable records and control file: one JSON line per effect (or per call), fsynced before the
// upstream answers, so a test can count effects even when the upstream died right after committing.
import fs from "node:fs";

export interface RecordedCall {
  tool: string;
  /** The call's arguments without the reserved `_test` switch. */
  args: Record<string, unknown>;
  /** The W3C traceparent the call's `params._meta` carried (the gateway passes its own span's on), if any. */
  traceparent?: string;
  /** ISO time of the record. */
  at: string;
  pid: number;
}

/** What a test can change between calls without changing their arguments (the gateway keys calls by them). */
export interface TestUpstreamControl {
  /** A switch per tool, e.g. `{ "charge": "exit_after_commit" }`; see test-upstream/behaviour.ts. */
  [tool: string]: string | string[] | undefined;
  /** Tools left out of tools/list; a change of this list sends notifications/tools/list_changed. */
  disabledTools?: string[];
  /**
   * Tools described otherwise (another description, one more input field), as an upstream that changes a tool under
   * its contract; a change of this list sends notifications/tools/list_changed.
   */
  changedTools?: string[];
}

/** Appends one record and fsyncs it before returning: the line survives a process.exit right after. */
export function appendRecord(file: string, record: RecordedCall): void {
  const fd = fs.openSync(file, "a");
  try {
    fs.writeSync(fd, `${JSON.stringify(record)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function readRecords(file: string): RecordedCall[] {
  if (!fs.existsSync(file)) return [];
  // Only newline-terminated lines are complete; a torn last line (a kill mid-write) is not a record.
  const lines = fs.readFileSync(file, "utf8").split("\n").slice(0, -1);
  return lines.filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as RecordedCall);
}

/** The effects the upstream committed (charge, put_record), in order. */
export function readEffects(file: string): RecordedCall[] {
  return readRecords(file);
}

/** Every call of every tool the upstream received, effect or not, in order. */
export function readCalls(file: string): RecordedCall[] {
  return readRecords(file);
}

/** Replaces the control file atomically, so the upstream never reads half of it. */
export function writeControl(file: string, control: TestUpstreamControl): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(control));
  fs.renameSync(temporary, file);
}
