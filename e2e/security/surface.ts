// What the code exposes, read from the source: every app/api/**/route.ts with its exported methods, every route of the
// agent plane (lib/agent-plane/routes.ts), and every exported server action under lib/console/actions.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../fixtures/test-env";

const METHODS = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, keep);
    return keep(entry.name) ? [full] : [];
  });
}

/** Names a module exports as values: `export const|let|function|async function X` and `export { a as X, Y }`. */
export function exportedValueNames(source: string): string[] {
  const names = [...source.matchAll(/^export\s+(?:const|let|(?:async\s+)?function)\s+([A-Za-z_$][\w$]*)/gm)].map(
    (m) => m[1]!,
  );
  for (const list of source.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of list[1]!.split(",")) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name && !name.startsWith("type ")) names.push(name);
    }
  }
  return names;
}

/** The methods every /api/v1 route answers: served, or refused with a 405 problem document. */
const V1_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * "METHOD /api/..." for every route of the agent plane: a v1("...") route answers all of V1_METHODS, a plain("...",
 * { ... }) route the methods it names.
 */
function agentPlaneRoutes(): string[] {
  const source = readFileSync(path.join(REPO_ROOT, "lib", "agent-plane", "routes.ts"), "utf8");
  const routes = [...source.matchAll(/\b(v1|plain)\("([^"]+)",\s*\{([^}]*)\}/g)].flatMap(([, kind, route, methods]) => {
    const named = [...methods!.matchAll(/\b([A-Z]+):/g)].map((m) => m[1]!).filter((m) => METHODS.has(m));
    return (kind === "v1" ? V1_METHODS : named).map((m) => `${m} ${route}`);
  });
  if (routes.length === 0) throw new Error("lib/agent-plane/routes.ts holds no route the surface scan recognises");
  return routes;
}

/**
 * "METHOD /api/..." for every handler under app/api, the route named as its folder is ("/api/console/runs/[runId]"),
 * and every route of the agent plane (/api/v1, /mcp, the probes).
 */
export function routeHandlers(): string[] {
  const appDir = path.join(REPO_ROOT, "app");
  const isRoute = (name: string) => /^route\.(ts|tsx|js)$/.test(name);
  const files = filesUnder(path.join(appDir, "api"), isRoute);
  const nextRoutes = files.flatMap((file) => {
    const route = `/${path
      .relative(appDir, path.dirname(file))
      .split(path.sep)
      .filter((s) => !/^\(.*\)$/.test(s))
      .join("/")}`;
    const methods = exportedValueNames(readFileSync(file, "utf8")).filter((n) => METHODS.has(n));
    if (methods.length === 0) throw new Error(`${file} exports no HTTP method the surface scan recognises`);
    return methods.map((m) => `${m} ${route}`);
  });
  return [...nextRoutes, ...agentPlaneRoutes()];
}

/**
 * "lib/console/actions/file.ts#name" for every export of a "use server" file under lib/console/actions (every one is callable over
 * HTTP).
 */
export function serverActions(): string[] {
  const dir = path.join(REPO_ROOT, "lib", "console", "actions");
  return filesUnder(dir, (name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)).flatMap((file) => {
    const source = readFileSync(file, "utf8");
    if (!/^\s*["']use server["'];?/.test(source)) return [];
    const relative = path.relative(REPO_ROOT, file).split(path.sep).join("/");
    return exportedValueNames(source).map((name) => `${relative}#${name}`);
  });
}
