-- Search: every string and number inside an operation's arguments, as one "OperationSearchTerm" row each, written by the
-- database itself when the operation is inserted, whichever code inserts it (docs/decisions/021-search-index.md).
-- Written by hand (Prisma's schema language has no triggers); prisma/migrations/20261202100100_search_terms is the
-- SQLite twin. Values longer than 200 characters are not indexed (nobody types them into a search box).
CREATE FUNCTION "Operation_search_terms"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "OperationSearchTerm" ("term", "operationId")
    SELECT DISTINCT leaf #>> '{}', NEW."id"
    FROM jsonb_path_query(NEW."argsJson"::jsonb, 'strict $.**') AS leaf
    WHERE jsonb_typeof(leaf) IN ('string', 'number')
      AND length(leaf #>> '{}') BETWEEN 1 AND 200
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "Operation_search_terms"
    AFTER INSERT ON "Operation"
    FOR EACH ROW EXECUTE FUNCTION "Operation_search_terms"();

-- The index is only true while arguments never change after plan (no command writes them): the database refuses it.
CREATE FUNCTION "Operation_refuse_args_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'Operation arguments never change after plan: UPDATE of argsJson refused'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER "Operation_args_immutable"
    BEFORE UPDATE OF "argsJson" ON "Operation"
    FOR EACH ROW WHEN (NEW."argsJson" IS DISTINCT FROM OLD."argsJson")
    EXECUTE FUNCTION "Operation_refuse_args_change"();

-- The operations planned before this migration.
INSERT INTO "OperationSearchTerm" ("term", "operationId")
SELECT DISTINCT leaf #>> '{}', o."id"
FROM "Operation" o, jsonb_path_query(o."argsJson"::jsonb, 'strict $.**') AS leaf
WHERE jsonb_typeof(leaf) IN ('string', 'number')
  AND length(leaf #>> '{}') BETWEEN 1 AND 200
ON CONFLICT DO NOTHING;
