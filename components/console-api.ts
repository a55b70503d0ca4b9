// The browser side of the console's JSON routes: typed fetches, their query keys, and errors an operator can act on.
import type { OperationDetail } from "@/lib/ledger/reads/operations";
import { operationsApiUrl, type OperationsRequest } from "@/lib/console/ledger-search";
import type { OperationPage } from "@/lib/console/operation-row";
import type { QueueCounts } from "@/lib/console/queue-counts";

/** A console route answered with a problem document (or not at all). */
export class ConsoleApiError extends Error {
  override name = "ConsoleApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function messageFor(status: number, detail: string | undefined): string {
  if (status === 401) return "Your session has ended. Sign in again to see the ledger.";
  if (status === 403) return "Your role does not allow this view.";
  if (status === 404) return detail ?? "There is no such operation.";
  if (status >= 500)
    return "The console server failed to answer. It may be restarting or its database may be unavailable.";
  return detail ?? `The console server answered ${status}.`;
}

export async function consoleGet<T>(url: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: "application/json" }, cache: "no-store" });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ConsoleApiError(
      0,
      "network",
      "The console server could not be reached. Check your connection or whether the server is running.",
    );
  }
  if (!response.ok) {
    let problem: { code?: string; detail?: string } = {};
    try {
      problem = (await response.json()) as { code?: string; detail?: string };
    } catch {
      // Not a problem document; the status alone explains it.
    }
    throw new ConsoleApiError(
      response.status,
      problem.code ?? `http_${response.status}`,
      messageFor(response.status, problem.detail),
    );
  }
  return (await response.json()) as T;
}

/** How often the queues, the ledger's newest page, the navigation counts and an open operation are refreshed. */
export const LIVE_INTERVAL_MS = 5_000;

export const consoleKeys = {
  operations: ["operations"] as const,
  list: (request: OperationsRequest) => ["operations", "list", request] as const,
  detail: (id: string) => ["operations", "detail", id] as const,
  counts: ["console", "counts"] as const,
};

export function fetchOperations(request: OperationsRequest, signal?: AbortSignal): Promise<OperationPage> {
  return consoleGet<OperationPage>(operationsApiUrl(request), signal);
}

export function fetchOperation(id: string, signal?: AbortSignal): Promise<OperationDetail> {
  return consoleGet<OperationDetail>(`/api/console/operations/${encodeURIComponent(id)}`, signal);
}

export function fetchCounts(signal?: AbortSignal): Promise<QueueCounts> {
  return consoleGet<QueueCounts>("/api/console/counts", signal);
}

/** Polling stops once the session is gone: asking again every 5 s would only repeat the 401. */
export function keepPolling(error: unknown): boolean {
  return !(error instanceof ConsoleApiError && (error.status === 401 || error.status === 403 || error.status === 404));
}
