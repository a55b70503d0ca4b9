// The lint's layer guards fail on a planted wrong arrow: eslint.config.mjs's blocks replace each other's rules for the
// same files, so a guard can vanish without a word (app/api had lost its Prisma guard that way).
import { ESLint, Linter } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: process.cwd() });
const linter = new Linter({ configType: "flat" });

/**
 * The no-restricted-imports messages for `source` linted as if it were the file at `filePath`: the rule as
 * eslint.config.mjs resolves it for that path, run alone (the type-aware rules would load the whole program).
 */
async function restrictedImports(filePath: string, source: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(filePath)) as Linter.Config;
  const rule = config.rules?.["no-restricted-imports"];
  if (rule === undefined) return [];
  const messages = linter.verify(source, {
    languageOptions: { sourceType: "module" },
    rules: { "no-restricted-imports": rule },
  });
  return messages.map((m) => m.message);
}

const PRISMA = 'import { prisma } from "@/lib/platform/db/prisma";\nexport const db = prisma;\n';
const COMPONENT = 'import { Button } from "@/components/ui/button";\nexport const b = Button;\n';

describe("the lint's layer guards", () => {
  it.each([
    "app/api/console/counts/route.ts",
    "app/(console)/layout.tsx",
    "components/ui/format-time.ts",
    "lib/console/actions/operation-actions.ts",
    "lib/console/console-route.ts",
    "lib/console/upstreams-view.ts",
    "lib/platform/http/problem.ts",
    "lib/agent-plane/node-headers.ts",
    "lib/agent-plane/mcp/gateway/call-tool.ts",
  ])("refuse the Prisma client in %s", async (filePath) => {
    expect(await restrictedImports(filePath, PRISMA)).toEqual([expect.stringContaining("Ask ledger()")]);
  });

  it("refuse components in a route handler, beside the Prisma guard", async () => {
    expect(await restrictedImports("app/api/console/counts/route.ts", COMPONENT)).toEqual([
      expect.stringContaining("Route handlers import from lib/"),
    ]);
  });

  it("let the ledger itself use the Prisma client", async () => {
    expect(await restrictedImports("lib/ledger/ledger.ts", PRISMA)).toEqual([]);
  });
});
