// `npm run lint`'s import check: exits 1 and names the files of every import circle in the repository.
import { importCircles, importGraph, sourceFiles } from "./import-graph";

const root = process.cwd();
const files = sourceFiles(root);
const circles = importCircles(importGraph(root, files));
if (circles.length > 0) {
  for (const circle of circles) console.error(`import circle of ${circle.length} files: ${circle.join(" → ")}`);
  process.exit(1);
}
console.log(`import graph: ${files.length} files, no circle`);
