// The audit page's filters as they live in the URL: parsed leniently (a bad value is named and ignored), and written
// back into links.
import { AUDIT_SUBJECTS, type AuditFilter } from "@/lib/ledger/reads/audit-log";
import type { AuditSubject } from "@/lib/ledger/audit/append";

export interface AuditSearch {
  subjectType?: AuditSubject;
  subjectId?: string;
  actorId?: string;
  action?: string;
  /** As typed: "1h", "7d" or a UTC time such as "2026-11-30T12:00". */
  since?: string;
  cursor?: string;
  /** Records per page, when not the default. */
  limit?: number;
}

export const AUDIT_PAGE_SIZE = 50;

export const SINCE_PRESETS = [
  { value: "15m", label: "last 15 minutes" },
  { value: "1h", label: "last hour" },
  { value: "24h", label: "last 24 hours" },
  { value: "7d", label: "last 7 days" },
] as const;

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_TEXT = 200;

function first(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  const trimmed = raw?.trim();
  return trimmed ? trimmed : undefined;
}

/** "1h" is relative to now; a date or date-time without a zone is read as UTC, like every exact time in the console. */
export function parseSince(raw: string, now: Date): Date | null {
  const relative = /^(\d{1,5})\s*([mhd])$/i.exec(raw);
  if (relative) {
    const unit = relative[2]?.toLowerCase() as keyof typeof UNIT_MS;
    return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[unit]);
  }
  const absolute = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?))?(Z|[+-]\d{2}:\d{2})?$/i.exec(
    raw,
  );
  if (!absolute) return null;
  const ms = Date.parse(`${absolute[1]}T${absolute[2] ?? "00:00"}${absolute[3] ?? "Z"}`);
  return Number.isFinite(ms) ? new Date(ms) : null;
}

export interface ParsedAuditSearch {
  search: AuditSearch;
  filter: AuditFilter;
  /** One sentence per parameter that could not be used. */
  problems: string[];
}

export function parseAuditSearch(params: Record<string, string | string[] | undefined>, now: Date): ParsedAuditSearch {
  const search: AuditSearch = {};
  const filter: AuditFilter = {};
  const problems: string[] = [];

  const subjectType = first(params.subjectType);
  if (subjectType) {
    if ((AUDIT_SUBJECTS as readonly string[]).includes(subjectType)) {
      search.subjectType = subjectType as AuditSubject;
      filter.subjectType = subjectType as AuditSubject;
    } else {
      problems.push(`“${subjectType}” is not a subject type; showing every type.`);
    }
  }
  for (const key of ["subjectId", "actorId", "action"] as const) {
    const value = first(params[key]);
    if (!value) continue;
    if (value.length > MAX_TEXT) {
      problems.push(`The ${key} filter is longer than ${MAX_TEXT} characters and was ignored.`);
      continue;
    }
    search[key] = value;
    filter[key] = value;
  }
  const since = first(params.since);
  if (since) {
    const at = parseSince(since, now);
    search.since = since;
    if (at) filter.since = at;
    else
      problems.push(
        `“${since}” is not a time: use 15m, 1h, 24h, 7d or a UTC time such as 2026-11-30T12:00. Showing every time.`,
      );
  }
  const cursor = first(params.cursor);
  if (cursor && /^[0-9A-HJKMNP-TV-Z]{26}$/i.test(cursor)) search.cursor = cursor.toUpperCase();
  const limit = first(params.limit);
  if (limit && /^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 200) search.limit = Number(limit);
  return { search, filter, problems };
}

/**
 * The audit page's URL for a search; `cursor` is dropped unless given, so a changed filter starts at the newest record.
 */
export function auditHref(search: AuditSearch): string {
  const params = new URLSearchParams();
  for (const key of ["subjectType", "subjectId", "actorId", "action", "since", "cursor"] as const) {
    const value = search[key];
    if (value) params.set(key, value);
  }
  if (search.limit !== undefined && search.limit !== AUDIT_PAGE_SIZE) params.set("limit", String(search.limit));
  const query = params.toString();
  return query ? `/audit?${query}` : "/audit";
}

export function hasFilters(search: AuditSearch): boolean {
  return Boolean(search.subjectType || search.subjectId || search.actorId || search.action || search.since);
}
