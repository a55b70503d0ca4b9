// Whether the person a bulk job acts as may still act: the job runs for minutes, and a person disabled or made a
// viewer meanwhile (or a key revoked) must not keep acting through it (docs/authority.md#principals: disabling the
// person disables the key).
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../actor";

async function personRefusal(ledger: Ledger, userId: string): Promise<string | null> {
  const user = await ledger.db.user.findUnique({ where: { id: userId }, select: { role: true, disabledAt: true } });
  if (!user) return "the person the job acts as no longer exists";
  if (user.disabledAt) return "the person the job acts as was disabled";
  if (user.role !== "operator" && user.role !== "admin") return "the person the job acts as may no longer act";
  return null;
}

/** Null when the job's actor may still act; else why not, in words for the job's report. */
export async function jobActorRefusal(ledger: Ledger, actor: Actor): Promise<string | null> {
  switch (actor.type) {
    case "user":
      return personRefusal(ledger, actor.id);
    case "api_key": {
      const key = await ledger.db.apiKey.findUnique({
        where: { id: actor.id },
        select: { revokedAt: true, ownerUserId: true },
      });
      if (!key || key.revokedAt) return "the API key the job acts through was revoked";
      return key.ownerUserId ? personRefusal(ledger, key.ownerUserId) : null;
    }
    case "system":
      return null;
  }
}
