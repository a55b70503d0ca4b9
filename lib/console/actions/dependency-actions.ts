"use server";
// Console actions on a dependency's circuit breaker: pin it open or closed, or return it to automatic (operator role,
// with a reason); edit its settings (admin role, with a reason and the version the admin saw).
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { consoleAction } from "@/lib/console/actions/console-action";
import { forceBreaker, type DependencyView } from "@/lib/ledger/dependencies/dependencies";
import { breakerSettingsSchema, DEPENDENCY_NAME } from "@/lib/ledger/dependencies/breaker-settings-schema";
import { putBreakerSettings, type PutBreakerSettingsResult } from "@/lib/ledger/dependencies/breaker-settings";

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

const editSettingsSchema = breakerSettingsSchema.extend({ name: z.string().regex(DEPENDENCY_NAME) }).strict();

export type EditBreakerSettingsInput = z.input<typeof editSettingsSchema>;

export const editBreakerSettings = consoleAction(
  "admin",
  editSettingsSchema,
  async ({ name, ...settings }, ctx): Promise<PutBreakerSettingsResult> => {
    const result = await putBreakerSettings(ctx.ledger, name, settings, ctx.actor, ctx.now);
    revalidatePath("/dependencies");
    return result;
  },
);
