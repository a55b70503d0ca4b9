// The agent plane's router: a path pattern ("/api/v1/operations/[id]/claim", "/api/v1/[[...path]]") and its
// endpoints per method. Routes are tried in the order given; a request's path is matched segment by segment.
import type { Endpoint, Method } from "./endpoint";

export interface Route {
  pattern: string;
  methods: Partial<Record<Method, Endpoint>>;
  /**
   * How a method the route does not serve is answered: the API's 405 problem document with Allow ("problem"), or a
   * bare 405, as Next.js answered the probes and /mcp ("bare").
   */
  otherMethods: "problem" | "bare";
}

interface Compiled {
  route: Route;
  /** Literal segments, or `{ param }` for a [name] segment. */
  segments: (string | { param: string })[];
  /** The name of a trailing [[...name]], which takes the rest of the path (none, one or many segments). */
  rest: string | null;
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/** An API route of /api/v1: every one of GET, POST, PUT, PATCH and DELETE is served or refused with a 405 problem. */
export function v1(pattern: string, methods: Route["methods"]): Route {
  return { pattern, methods, otherMethods: "problem" };
}

/** A route outside /api/v1 (the probes, /mcp): only the methods it names; others a bare 405. */
export function plain(pattern: string, methods: Route["methods"]): Route {
  return { pattern, methods, otherMethods: "bare" };
}

function compile(route: Route): Compiled {
  const parts = route.pattern.split("/").slice(1);
  const last = parts.at(-1) ?? "";
  const restName = /^\[\[\.\.\.(\w+)\]\]$/.exec(last)?.[1] ?? null;
  const fixed = restName ? parts.slice(0, -1) : parts;
  return {
    route,
    segments: fixed.map((part) => {
      const param = /^\[(\w+)\]$/.exec(part)?.[1];
      return param ? { param } : part;
    }),
    rest: restName,
  };
}

export class Router {
  readonly #routes: Compiled[];

  constructor(routes: Route[]) {
    this.#routes = routes.map(compile);
  }

  /** The first route whose pattern takes `segments` (the path split at "/", each percent-decoded), or null. */
  match(segments: string[]): Match | null {
    for (const { route, segments: pattern, rest } of this.#routes) {
      if (rest === null ? segments.length !== pattern.length : segments.length < pattern.length) continue;
      const params: Record<string, string> = {};
      let matches = true;
      for (let i = 0; i < pattern.length && matches; i += 1) {
        const part = pattern[i]!;
        if (typeof part === "string") matches = part === segments[i];
        else params[part.param] = segments[i]!;
      }
      if (!matches) continue;
      if (rest !== null) params[rest] = segments.slice(pattern.length).join("/");
      return { route, params };
    }
    return null;
  }
}
