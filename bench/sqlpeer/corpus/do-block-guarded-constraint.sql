-- family: sql-constraint-validated
-- source: the guarded ADD CONSTRAINT idiom of migrations (sqlfluff #5488, pgrubic #120); squawk issue #528
-- expect: flag sql-constraint-validated
-- squawk: pass
-- file
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.table_constraints
                 WHERE constraint_name = 'fk_example' AND table_name = 'example') THEN
    ALTER TABLE example ADD CONSTRAINT fk_example
      FOREIGN KEY (other_id) REFERENCES other (id);
  END IF;
END $$;
