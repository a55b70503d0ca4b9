// "Classify": an upstream's tool found by its gateway name and read into a first draft from its own (untrusted) hints.
import { draftFromHints, type ClassifyDraft } from "@/lib/console/classify-draft";
import { parseGatewayToolName } from "@/lib/services/upstreams/tool-names";
import { upstreams } from "@/lib/services/upstreams/upstreams";

/** The draft for `name` (`<upstream>__<tool>`), or null when no declared upstream lists that tool now. */
export async function classifyDraft(name: string): Promise<ClassifyDraft | null> {
  const parsed = parseGatewayToolName(name);
  if (!parsed) return null;
  const registry = upstreams();
  // Listing tools starts upstreams not yet running; an undeclared upstream need not start the others.
  if (!registry.list().some((u) => u.name === parsed.upstream)) return null;
  const found = (await registry.tools()).find((t) => t.gatewayName === name);
  return found ? draftFromHints({ ...found.tool, name: found.gatewayName }) : null;
}
