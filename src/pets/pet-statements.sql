-- src/pets/pet-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- findByIdWithCategory: getPetById and v2 getPet
-- parameters: "7"
SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
FROM pets p LEFT JOIN categories c ON c.id = p.category_id
WHERE p.id = $1;

-- listPage: v2 listPets: first page, ascending, no filter
-- parameters: 101
SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
FROM (SELECT id, name, status, category_id FROM pets
ORDER BY id ASC LIMIT $1) AS p LEFT JOIN categories c ON c.id = p.category_id
ORDER BY p.id ASC;

-- listPage: v2 listPets: a later page, descending, one status
-- parameters: "42", 21, "available"
SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
FROM (SELECT id, name, status, category_id FROM pets
WHERE id < $1 AND status = $3
ORDER BY id DESC LIMIT $2) AS p LEFT JOIN categories c ON c.id = p.category_id
ORDER BY p.id DESC;

-- listPage: v2 listPets: a later page, a category and two statuses
-- parameters: "42", "2", 101, "available", "pending"
SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
FROM (SELECT * FROM ((SELECT id, name, status, category_id FROM pets
WHERE id > $1 AND category_id = $2 AND status = $4
ORDER BY id ASC LIMIT $3) UNION ALL (SELECT id, name, status, category_id FROM pets
WHERE id > $1 AND category_id = $2 AND status = $5
ORDER BY id ASC LIMIT $3)) AS page ORDER BY id ASC LIMIT $3) AS p LEFT JOIN categories c ON c.id = p.category_id
ORDER BY p.id ASC;
