-- Search: every string and number inside an operation's arguments, as one "OperationSearchTerm" row each, written by the
-- database itself when the operation is inserted, whichever code inserts it (docs/decisions/021-search-index.md).
-- Written by hand (Prisma's schema language has no triggers); prisma/postgresql/migrations/20261202100100_search_terms
-- is the PostgreSQL twin. Values longer than 200 characters are not indexed (nobody types them into a search box).
CREATE TRIGGER "Operation_search_terms"
AFTER INSERT ON "Operation"
BEGIN
    INSERT OR IGNORE INTO "OperationSearchTerm" ("term", "operationId")
    SELECT DISTINCT CAST("value" AS TEXT), NEW."id"
    FROM json_tree(NEW."argsJson")
    WHERE "type" IN ('text', 'integer', 'real')
      AND length(CAST("value" AS TEXT)) BETWEEN 1 AND 200;
END;

-- The index is only true while arguments never change after plan (no command writes them): the database refuses it.
CREATE TRIGGER "Operation_args_immutable"
BEFORE UPDATE OF "argsJson" ON "Operation"
WHEN NEW."argsJson" IS NOT OLD."argsJson"
BEGIN
    SELECT RAISE(ABORT, 'Operation arguments never change after plan: UPDATE of argsJson refused');
END;

-- The operations planned before this migration.
INSERT OR IGNORE INTO "OperationSearchTerm" ("term", "operationId")
SELECT DISTINCT CAST(j."value" AS TEXT), o."id"
FROM "Operation" o, json_tree(o."argsJson") j
WHERE j."type" IN ('text', 'integer', 'real')
  AND length(CAST(j."value" AS TEXT)) BETWEEN 1 AND 200;
