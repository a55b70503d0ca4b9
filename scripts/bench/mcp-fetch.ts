// The fetch the benchmark's MCP clients give the SDK's Streamable HTTP client transport. The transport passes one
// AbortSignal, its own for the whole session, to every request it sends; Node's fetch (undici) adds an abort listener
// to that signal per request and removes it only when the request object is garbage-collected, so a client making
// thousands of calls piles up listeners on one signal until Node prints a MaxListenersExceededWarning with a stack
// trace for every call (undici raises that signal's limit to 1,500 first). Here each request gets a signal of its own,
// tied to the session's by a listener that is taken off again as soon as the request is answered.
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * Requests whose answer is read within the call (every POST: a JSON answer, or an event stream that ends with the
 * call's result) are cut loose from the session's signal once the response arrives; the listening stream (GET) stays
 * tied to it, so closing the transport still ends that stream. There is one such stream per session, not one per call.
 */
export const fetchWithOwnSignal: FetchLike = async (url, init) => {
  const session = init?.signal;
  if (!session || init?.method === "GET") return fetch(url, init);
  const own = new AbortController();
  const abort = (): void => own.abort(session.reason);
  if (session.aborted) abort();
  else session.addEventListener("abort", abort, { once: true });
  try {
    return await fetch(url, { ...init, signal: own.signal });
  } finally {
    session.removeEventListener("abort", abort);
  }
};
