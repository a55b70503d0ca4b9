-- MCP gateway, pinned tools (issue #26, docs/mcp.md "Pinned tools"): the tool definition each contracted tool was
-- classified against. No rows at first: each contracted tool is pinned the first time the gateway sees it, audited.
-- CreateTable
CREATE TABLE "ToolPin" (
    "tool" TEXT NOT NULL PRIMARY KEY,
    "contractVersion" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "definition" TEXT NOT NULL,
    "changedHash" TEXT,
    "changedDefinition" TEXT,
    "pinnedAt" DATETIME NOT NULL
);
