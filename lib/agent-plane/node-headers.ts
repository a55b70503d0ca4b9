// A Node request's headers read the way the shared rules read a Web request's (`get`, lower-case names, repeated
// values joined), without building a Web Headers object per request.
import type { IncomingMessage } from "node:http";

export function nodeHeaders(req: IncomingMessage): Pick<Headers, "get"> {
  return {
    get(name: string): string | null {
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}
