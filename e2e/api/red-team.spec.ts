// The red team (e2e/security/red-team.ts) again in the PostgreSQL pass of `npm test`, which runs e2e/api, e2e/crash and
// e2e/scale-out only; on SQLite e2e/security/red-team.spec.ts runs it, so here it is skipped.
import { test } from "@playwright/test";
import { E2E_DB_URL } from "../fixtures/api";
import { redTeamSuite } from "../security/red-team";

test.skip(E2E_DB_URL.startsWith("file:"), "on SQLite the red team runs from e2e/security/red-team.spec.ts");

redTeamSuite();
