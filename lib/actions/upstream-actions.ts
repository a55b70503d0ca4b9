"use server";
// Console action on the Upstreams page: an admin confirms the definition an upstream now gives a contracted tool that
// changed since it was classified (the one the admin was shown, by its hash), so the gateway lists and calls it again.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { consoleAction } from "@/lib/actions/console-action";
import { confirmToolDefinition } from "@/lib/ledger/commands/tool-pins";

const confirmSchema = z
  .object({
    tool: z.string().trim().min(1).max(200),
    hash: z.string().regex(/^[0-9a-f]{64}$/, "The definition's hash is 64 hexadecimal characters."),
  })
  .strict();

export const confirmToolDefinitionAction = consoleAction("admin", confirmSchema, async (input, ctx) => {
  await confirmToolDefinition(ctx.ledger, input.tool, { hash: input.hash }, ctx.actor, ctx.now);
  revalidatePath("/upstreams");
  return { tool: input.tool };
});
