// A dependency's breaker settings as an admin writes them: one zod schema shared by the API and the console dialog.
import { z } from "zod";

/** The names a contract may give a dependency (the same pattern as contract-schema.ts's). */
export const DEPENDENCY_NAME = /^[a-z0-9][a-z0-9._:-]{0,63}$/i;

/**
 * The bounds an admin may set (docs/operators.md#tune-a-breaker): enough to tune, never a breaker that cannot open or
 * never closes.
 */
export const BREAKER_SETTING_BOUNDS = {
  failureThreshold: { min: 1, max: 1000 },
  cooldownMs: { min: 1_000, max: 3_600_000 },
  probes: { min: 1, max: 100 },
} as const;

/** One message per field, naming its range in the words the console's form uses. */
const bounded = (name: keyof typeof BREAKER_SETTING_BOUNDS, message: string) => {
  const { min, max } = BREAKER_SETTING_BOUNDS[name];
  return z.int(message).min(min, message).max(max, message);
};

export const breakerSettingsSchema = z
  .object({
    failureThreshold: bounded("failureThreshold", "The failure threshold is a whole number from 1 to 1000."),
    cooldownMs: bounded("cooldownMs", "The cooldown is from 1 second to 1 hour (1000 to 3600000 ms), in whole ms."),
    probes: bounded("probes", "The probe count is a whole number from 1 to 100."),
    reason: z
      .string()
      .trim()
      .min(3, "Say why, in a few words (at least 3 characters).")
      .max(500, "Keep the reason under 500 characters."),
    /** The settings version the editor saw (0: never edited); another one means someone saved first: 409. */
    expectedVersion: z.int().min(0),
  })
  .strict();

export type BreakerSettingsInput = z.infer<typeof breakerSettingsSchema>;
