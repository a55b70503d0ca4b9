// Test setup: any console.error or console.warn during a test fails that test, naming what was logged.
import { afterEach, beforeEach, vi, type MockInstance } from "vitest";
import { format } from "node:util";

type ConsoleMethod = (...args: unknown[]) => void;

/**
 * The spies of the running test. A test that expects a warning or an error asserts on it and then
 * clears it, e.g. `expect(consoleError).toHaveBeenCalledWith(...); consoleError.mockClear();`.
 */
export let consoleError: MockInstance<ConsoleMethod>;
export let consoleWarn: MockInstance<ConsoleMethod>;

/** The failure message for what a test logged, or null when it logged nothing on error or warn. */
export function unexpectedConsoleOutput(calls: { error: unknown[][]; warn: unknown[][] }): string | null {
  const lines = [
    ...calls.error.map((args) => `console.error: ${format(...args)}`),
    ...calls.warn.map((args) => `console.warn: ${format(...args)}`),
  ];
  if (lines.length === 0) return null;
  return [
    `The test logged ${lines.length} unexpected console message(s):`,
    ...lines.map((line) => `  ${line}`),
    "If this output is expected, assert on consoleError/consoleWarn from tests/setup/fail-on-console.ts and call mockClear().",
  ].join("\n");
}

beforeEach(() => {
  // Silenced: the messages are reported in the failure instead, and expected ones do not clutter the run.
  consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
  consoleWarn = vi.spyOn(console, "warn").mockImplementation(() => {});
});

afterEach(() => {
  const message = unexpectedConsoleOutput({ error: consoleError.mock.calls, warn: consoleWarn.mock.calls });
  consoleError.mockRestore();
  consoleWarn.mockRestore();
  if (message) throw new Error(message);
});
