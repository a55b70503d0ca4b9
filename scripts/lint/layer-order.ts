// `npm run lint`'s layer check: exits 1 and names every import arrow that scripts/lint/layer-table.ts does not list.
import { importGraph, sourceFiles } from "./import-graph";
import { LAYERS, wrongArrows } from "./layer-table";

const root = process.cwd();
const wrong = wrongArrows(importGraph(root, sourceFiles(root)));
for (const arrow of wrong) {
  console.error(
    `layer arrow ${arrow.from} → ${arrow.to} is not in the layer table (scripts/lint/layer-table.ts): ` +
      `${arrow.file} imports ${arrow.imports}; ${arrow.from} is ${LAYERS[arrow.from]!.is}, and may import ` +
      `${LAYERS[arrow.from]!.mayImport.join(", ") || "nothing of the project"}`,
  );
}
if (wrong.length > 0) process.exit(1);
console.log(`layers: every import arrow is in the table (${Object.keys(LAYERS).length} layers)`);
