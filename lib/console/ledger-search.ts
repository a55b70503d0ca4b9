// The ledger's filters as URL search parameters: one definition for the page, its table and the route that serves them.
import { z } from "zod";
import { EFFECT_CLASSES, PHASES, type EffectClass, type Phase } from "@/lib/retry-gate/types";

/** "Older than" choices offered in the filter bar; the route accepts any whole number of minutes, hours or days. */
export const AGE_CHOICES = [
  { value: "5m", label: "5 min" },
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
] as const;

const AGE = /^(\d{1,5})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "5m", "1h", "24h", "7d" as milliseconds; null for anything else. */
export function ageToMs(age: string): number | null {
  const match = AGE.exec(age);
  if (!match?.[1] || !match[2]) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

const text = (max: number) => z.string().trim().min(1).max(max);

/** Every filter is optional; the route rejects a bad one with a 400, the page silently drops it. */
export const ledgerFilterSchema = z.object({
  phase: z.enum(PHASES).optional(),
  tool: text(128).optional(),
  effect: z.enum(EFFECT_CLASSES).optional(),
  runId: text(200).optional(),
  agentId: text(200).optional(),
  age: z.string().regex(AGE, 'an age such as "5m", "1h", "24h" or "7d"').optional(),
});

export type LedgerFilter = z.infer<typeof ledgerFilterSchema>;
export const FILTER_KEYS = [
  "phase",
  "tool",
  "effect",
  "runId",
  "agentId",
  "age",
] as const satisfies readonly (keyof LedgerFilter)[];

export interface LedgerLocation {
  filter: LedgerFilter;
  /** Cursors of the pages the person stepped through; the last one is the page shown. Empty on the newest page. */
  cursors: string[];
  limit: number;
}

const CURSOR = /^[0-9A-Za-z]{1,64}$/;

/**
 * Reads the page's URL leniently: a value that does not parse is left out, so a mangled link still shows the ledger.
 */
export function readLedgerLocation(params: URLSearchParams): LedgerLocation {
  const filter: LedgerFilter = {};
  for (const key of FILTER_KEYS) {
    const raw = params.get(key);
    if (raw === null || raw === "") continue;
    const parsed = ledgerFilterSchema.shape[key].safeParse(raw);
    if (parsed.success && parsed.data !== undefined) (filter as Record<string, string>)[key] = parsed.data;
  }
  const cursors = (params.get("cursors") ?? "").split(",").filter((c) => CURSOR.test(c));
  const limitRaw = Number(params.get("limit"));
  const limit = Number.isInteger(limitRaw) && limitRaw >= 1 ? Math.min(limitRaw, MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
  return { filter, cursors, limit };
}

/** The page's URL for a location; defaults are left out so links stay short. */
export function ledgerHref(location: LedgerLocation): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = location.filter[key];
    if (value) params.set(key, value);
  }
  if (location.cursors.length > 0) params.set("cursors", location.cursors.join(","));
  if (location.limit !== DEFAULT_PAGE_SIZE) params.set("limit", String(location.limit));
  const query = params.toString();
  return query ? `/?${query}` : "/";
}

export interface OperationsRequest {
  filter?: LedgerFilter;
  cursor?: string;
  limit: number;
  order: "newest" | "oldest";
}

/** The page of operations a location of the ledger page shows: the last cursor stepped to, newest first. */
export function ledgerRequest(location: LedgerLocation): OperationsRequest {
  return { filter: location.filter, cursor: location.cursors.at(-1), limit: location.limit, order: "newest" };
}

/** The console route's URL for one page of operations. */
export function operationsApiUrl(request: OperationsRequest): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = request.filter?.[key];
    if (value) params.set(key, value);
  }
  if (request.cursor) params.set("cursor", request.cursor);
  params.set("limit", String(request.limit));
  params.set("order", request.order);
  return `/api/console/operations?${params.toString()}`;
}

export function hasFilters(filter: LedgerFilter): boolean {
  return FILTER_KEYS.some((key) => Boolean(filter[key]));
}

export type { EffectClass, Phase };
