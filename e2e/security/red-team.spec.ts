// The red team (issue #16): an agent key alone tries every path to a second attempt of a NON_RETRYABLE call without a
// person; every one is refused and the provider sees one effect per call. The suite lives in ./red-team.ts.
import { redTeamSuite } from "./red-team";

redTeamSuite();
