"use server";
// Console action on the Upstreams page: an admin confirms the definition an upstream now gives a contracted tool that
// changed since it was classified (the one the admin was shown, by its hash and the contract version it was shown
// under), with a reason: a new contract version, and the gateway lists and calls the tool again.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { consoleAction } from "@/lib/console/actions/console-action";
import { confirmToolDefinition } from "@/lib/ledger/commands/confirm-tool-definition";

const confirmSchema = z
  .object({
    tool: z.string().trim().min(1).max(200),
    contractVersion: z.number().int().min(1),
    hash: z.string().regex(/^[0-9a-f]{64}$/, "The definition's hash is 64 hexadecimal characters."),
    reason: z.string().trim().min(1, "Give a reason; it is recorded with your name.").max(500),
  })
  .strict();

export const confirmToolDefinitionAction = consoleAction("admin", confirmSchema, async (input, ctx) => {
  const { tool, contractVersion, hash, reason } = input;
  const confirmed = await confirmToolDefinition(
    ctx.ledger,
    tool,
    { contractVersion, hash, reason },
    ctx.actor,
    ctx.now,
  );
  revalidatePath("/upstreams");
  revalidatePath("/contracts");
  revalidatePath(`/contracts/${encodeURIComponent(tool)}`);
  return confirmed;
});
