-- src/pets/pet-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- findByIdWithCategory: getPetById
-- parameters: "7"
SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
FROM pets p LEFT JOIN categories c ON c.id = p.category_id
WHERE p.id = $1;
