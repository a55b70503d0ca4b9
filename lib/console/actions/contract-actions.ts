"use server";
// Console action that saves a tool contract (admin role): the body is checked by the same schema as the API, and a save
// against an older version is refused.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { consoleAction } from "@/lib/console/actions/console-action";
import { contractBodySchema, TOOL_NAME, type ContractView } from "@/lib/ledger/contracts/contract-schema";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError } from "@/lib/ledger/errors";

const saveContractSchema = z
  .object({
    tool: z
      .string()
      .trim()
      .min(1, "Give the tool's name exactly as agents call it.")
      .regex(TOOL_NAME, "Letters, digits and . _ : - only, starting with a letter or digit, at most 128 characters."),
    /** "create" refuses to replace a contract that already exists; "edit" refuses a save on top of someone else's. */
    mode: z.enum(["create", "edit"]),
    body: contractBodySchema,
  })
  .strict()
  .refine((input) => input.mode === "create" || input.body.expectedVersion !== undefined, {
    message: "An edit must say which version it started from.",
    path: ["body", "expectedVersion"],
  });

export type SaveContractInput = z.input<typeof saveContractSchema>;

export interface SaveContractOutcome {
  contract: ContractView;
  /** False when the body was identical to the current version, which is kept. */
  changed: boolean;
}

export const saveContract = consoleAction(
  "admin",
  saveContractSchema,
  async (input, ctx): Promise<SaveContractOutcome> => {
    const expectedVersion = input.mode === "create" ? 0 : input.body.expectedVersion;
    let result;
    try {
      result = await putContract(ctx.ledger, input.tool, { ...input.body, expectedVersion }, ctx.actor, ctx.now);
    } catch (error) {
      if (error instanceof LedgerError && error.code === "contract_conflict" && input.mode === "create") {
        throw new LedgerError(
          "contract_conflict",
          `A contract for ${input.tool} already exists, so nothing was saved. Open it and edit it instead; ` +
            "every edit becomes a new version.",
        );
      }
      throw error;
    }
    revalidatePath("/contracts");
    revalidatePath(`/contracts/${encodeURIComponent(input.tool)}`);
    return { contract: result.contract, changed: result.changed };
  },
);
