// The citation check from the shell: prints every dead citation as file:line and exits 1 if there is one.
import { formatDeadCitation, repositoryDeadCitations } from "./citations";

const dead = repositoryDeadCitations(process.cwd());
for (const citation of dead) console.error(formatDeadCitation(citation));
if (dead.length > 0) process.exit(1);
console.log("citations: every cited file and heading is in the repository");
