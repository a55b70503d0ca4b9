// The phase-literal check from the shell: prints every phase a command writes as a literal, and exits 1 if there is one.
import { commandPhaseLiterals, formatPhaseLiteral } from "./phase-literals";

const found = commandPhaseLiterals(process.cwd());
for (const literal of found) console.error(formatPhaseLiteral(literal));
if (found.length > 0) process.exit(1);
console.log("phase literals: every phase lib/ledger/commands writes is the gate's answer");
