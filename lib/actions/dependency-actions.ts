"use server";
// Console action that pins a dependency's circuit breaker open or closed, or returns it to automatic (operator role,
// with a reason).
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { consoleAction } from "@/lib/actions/console-action";
import { forceBreaker, type DependencyView } from "@/lib/ledger/dependencies/dependencies";

const forceBreakerSchema = z
  .object({
    name: z.string().trim().min(1).max(64),
    state: z.enum(["open", "closed", "auto"]),
    reason: z
      .string()
      .trim()
      .min(3, "Say why, in a few words (at least 3 characters).")
      .max(500, "Keep the reason under 500 characters."),
  })
  .strict();

export type ForceBreakerInput = z.input<typeof forceBreakerSchema>;

export interface ForceBreakerOutcome {
  dependency: DependencyView;
  changed: boolean;
}

export const forceDependencyBreaker = consoleAction(
  "operator",
  forceBreakerSchema,
  async (input, ctx): Promise<ForceBreakerOutcome> => {
    const result = await forceBreaker(
      ctx.ledger,
      input.name,
      { state: input.state, reason: input.reason },
      ctx.actor,
      ctx.now,
    );
    revalidatePath("/dependencies");
    return result;
  },
);
