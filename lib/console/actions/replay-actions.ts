"use server";
// The console's Replay…: an operator replays an operation that is over, with the arguments as edited in the dialog's
// JSON editor, through the same ledger command as POST /api/v1/operations/{id}/replay.
import { z } from "zod";
import { consoleAction } from "@/lib/console/actions/console-action";
import { unstorableInput } from "@/lib/platform/http/request-body";
import { MAX_REPLAY_ARGS_BYTES, replayOperation } from "@/lib/ledger/commands/replay";
import { LedgerError } from "@/lib/ledger/errors";
import type { Phase } from "@/lib/retry-gate/types";

const replaySchema = z
  .object({
    id: z.string().trim().min(1).max(64),
    /** The JSON editor's text: parsed here, so a typing mistake comes back as a field error. */
    argsText: z
      .string()
      .trim()
      .min(1, "Give the arguments as a JSON object.")
      .max(MAX_REPLAY_ARGS_BYTES * 2),
    reason: z.string().trim().min(1, "Give a reason; it is recorded with your name.").max(2000),
  })
  .strict();

export type ReplayActionInput = z.input<typeof replaySchema>;

/** The new operation; a refusal (nothing written) is the action's failure, with its code and field messages. */
export interface ReplayActionResult {
  replay: { id: string; phase: Phase };
}

function parsedArgs(text: string): { args: unknown } | { error: string } {
  let args: unknown;
  try {
    args = JSON.parse(text) as unknown;
  } catch (error) {
    return { error: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  // The same limits as any request body (nesting, unstorable text), checked without recursion.
  const unstorable = unstorableInput(args);
  return unstorable ? { error: `not storable: ${unstorable}` } : { args };
}

export const replayOperationAction = consoleAction(
  "operator",
  replaySchema,
  async ({ id, argsText, reason }, { ledger, actor, now }): Promise<ReplayActionResult> => {
    const parsed = parsedArgs(argsText);
    if ("error" in parsed) {
      throw new LedgerError("invalid_args", `The arguments are ${parsed.error}.`, { errors: { args: [parsed.error] } });
    }
    const replay = await replayOperation(ledger, id, { args: parsed.args, reason }, actor, now);
    return { replay: { id: replay.id, phase: replay.phase } };
  },
);
