// The repository's import graph (type-only imports included) and its circles, for `npm run lint`: arrows between the
// layers go one way (docs/architecture.md), so any circle is a mistake.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const SOURCE = /\.(ts|tsx)$/;
const SKIP = new Set([".git", "lib/platform/generated", "test-results", "playwright-report", ".data"]);

/** Every .ts/.tsx file below `root`, as paths relative to it. */
export function sourceFiles(root: string, dir = ""): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    // Installed packages at any depth (the root's, and the benchmark peers' in scripts/bench/peers) are not the project.
    if (SKIP.has(relative) || entry.name === "node_modules" || entry.name.startsWith(".next")) continue;
    if (entry.isDirectory()) files.push(...sourceFiles(root, relative));
    else if (SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(relative);
  }
  return files;
}

/** The project file an import specifier names (`@/` is the root), or null for a package or a file that is not there. */
function resolve(files: Set<string>, from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/** file → the project files it imports (static, dynamic and type-only imports, and re-exports). */
export function importGraph(root: string, files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = importedFiles
      .map((imported) => resolve(known, file, imported.fileName))
      .filter((target): target is string => target !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The graph's circles: strongly connected components of more than one file, or a file that imports itself. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { file: string; edge: number }[] = [{ file: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.file) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.file);
      if (component.length > 1 || edges.includes(frame.file)) circles.push(component.sort());
    }
  }
  return circles;
}
