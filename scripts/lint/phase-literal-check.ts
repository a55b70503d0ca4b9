// The phase-literal check from the shell: prints every phase the ledger writes as a literal, and exits 1 if there is one.
import { ledgerPhaseLiterals, formatPhaseLiteral } from "./phase-literals";

const found = ledgerPhaseLiterals(process.cwd());
for (const literal of found) console.error(formatPhaseLiteral(literal));
if (found.length > 0) process.exit(1);
console.log("phase literals: every phase lib/ledger writes is the gate's answer");
