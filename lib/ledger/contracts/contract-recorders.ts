// Who saved each version of a tool's contract, as the audit trail recorded it (an API key may act for a person).
import type { Ledger } from "@/lib/ledger/ledger";

export interface VersionRecorder {
  actorType: string;
  actorId: string;
  onBehalfOf: string | null;
  /** What people read for the recorder; null on records written before labels were kept. */
  actorLabel: string | null;
  /** A version made by confirming an MCP tool's new definition (same rules): the admin's reason. */
  confirmedDefinition: { reason: string } | null;
}

/** The contract's versions look back this far in its audit trail. */
const RECORDERS_LIMIT = 500;

function recordOf(data: string | null): { version: number | null; confirmed: boolean } {
  if (!data) return { version: null, confirmed: false };
  try {
    const parsed = JSON.parse(data) as { version?: unknown; definition?: unknown };
    return {
      version: typeof parsed.version === "number" ? parsed.version : null,
      confirmed: parsed.definition !== undefined,
    };
  } catch {
    return { version: null, confirmed: false };
  }
}

/** Version number → who recorded it; the newest record of a version wins. */
export async function contractRecorders(ledger: Ledger, tool: string): Promise<Map<number, VersionRecorder>> {
  const events = await ledger.db.auditEvent.findMany({
    where: { subjectType: "contract", subjectId: tool, action: { in: ["contract.created", "contract.updated"] } },
    select: { actorType: true, actorId: true, onBehalfOf: true, actorLabel: true, reason: true, data: true },
    orderBy: { id: "desc" },
    take: RECORDERS_LIMIT,
  });
  const recorders = new Map<number, VersionRecorder>();
  for (const event of events) {
    const { version, confirmed } = recordOf(event.data);
    if (version !== null && !recorders.has(version)) {
      recorders.set(version, {
        actorType: event.actorType,
        actorId: event.actorId,
        onBehalfOf: event.onBehalfOf,
        actorLabel: event.actorLabel,
        confirmedDefinition: confirmed ? { reason: event.reason ?? "" } : null,
      });
    }
  }
  return recorders;
}
