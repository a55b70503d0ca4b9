// How the test upstream behaves on one call: chosen by the call's reserved `_test` argument, else by the control file
// read at each call.
import fs from "node:fs";
import type { TestUpstreamControl } from "../test-upstream-effects";

export type Behaviour =
  | { kind: "normal" }
  | { kind: "hang_after_commit" }
  | { kind: "exit_after_commit" }
  | { kind: "is_error" }
  | { kind: "is_error_after_commit" }
  | { kind: "fail_before_commit" }
  | { kind: "slow"; ms: number };

const SIMPLE = ["hang_after_commit", "exit_after_commit", "is_error", "is_error_after_commit", "fail_before_commit"];

function parseSwitch(raw: string): Behaviour | null {
  if (raw === "" || raw === "normal") return { kind: "normal" };
  if (SIMPLE.includes(raw)) return { kind: raw } as Behaviour;
  const slow = /^slow:(\d{1,7})$/.exec(raw);
  return slow?.[1] ? { kind: "slow", ms: Number(slow[1]) } : null;
}

/** The control file's contents; a missing file is no control at all. */
export function readControl(file: string | undefined): TestUpstreamControl {
  if (!file || !fs.existsSync(file)) return {};
  const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error(`the control file ${file} is not a JSON object`);
  return parsed as TestUpstreamControl;
}

/** The behaviour for this call, or a problem sentence (an unknown switch, an unreadable control file). */
export function behaviourFor(
  tool: string,
  argumentSwitch: string | undefined,
  controlFile: string | undefined,
): Behaviour | { problem: string } {
  let raw = argumentSwitch;
  if (raw === undefined) {
    try {
      const fromFile = readControl(controlFile)[tool];
      raw = typeof fromFile === "string" ? fromFile : undefined;
    } catch (error) {
      return { problem: `test upstream: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  if (raw === undefined) return { kind: "normal" };
  return parseSwitch(raw) ?? { problem: `test upstream: unknown switch "${raw}" for ${tool}` };
}
