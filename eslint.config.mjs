// Lint: Next.js rules plus typescript-eslint with type information.
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import tseslint from "typescript-eslint";

const PRISMA_MESSAGE = "Ask ledger() (lib/ledger/ledger.ts) instead of the Prisma client.";
const PRISMA_PATTERNS = [
  { group: ["@/lib/platform/db/*"], message: PRISMA_MESSAGE },
  { group: ["@/lib/platform/generated/*"], allowTypeImports: true, message: PRISMA_MESSAGE },
];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    ".next*/**",
    "node_modules/**",
    "lib/platform/generated/**",
    "next-env.d.ts",
    "test-results/**",
    "playwright-report/**",
  ]),
  {
    files: ["**/*.ts", "**/*.tsx"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The two planes (the console's pages, components, routes and server side; the agent plane with the MCP gateway)
    // and the HTTP wire they share ask the ledger (lib/ledger/ledger.ts), never the Prisma client.
    files: [
      "app/**/*.ts",
      "app/**/*.tsx",
      "components/**/*.ts",
      "components/**/*.tsx",
      "lib/console/**",
      "lib/agent-plane/**",
      "lib/platform/http/**",
    ],
    rules: { "no-restricted-imports": ["error", { patterns: [...PRISMA_PATTERNS] }] },
  },
  {
    // Route handlers answer from lib/; the React components are for pages only. A later block's rule replaces an
    // earlier one's for the same files, so the Prisma patterns are repeated here (scripts/lint/layer-guards.test.ts).
    files: ["app/api/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...PRISMA_PATTERNS,
            { group: ["@/components/*"], message: "Route handlers import from lib/, not from components/." },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // No source line over 140 characters: Prettier wraps code at 120, and a string, test title or comment too long
    // for one line is split into a concatenation of the same text (or moved into a named value).
    rules: { "max-len": ["error", { code: 140 }] },
  },
]);
