-- Up Migration
-- Other ways visitors ask for a curated answer (docs/operators.md "Curated answers"): the operator adds
-- a knowledge gap's wording to the answer it should have had ("is there internet in the rooms" to "Do
-- you have free Wi-Fi?"), and the matcher and the retrieval take it as one more question of the answer.
ALTER TABLE curated_answers ADD COLUMN alternates text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE curated_answers DROP COLUMN alternates;
