-- family: sql-constraint-validated
-- source: the same idiom in its safe form: NOT VALID inside the guard
-- expect: pass
-- squawk: pass
-- file
SET lock_timeout = '2s';
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'fk_example') THEN
    ALTER TABLE example ADD CONSTRAINT fk_example
      FOREIGN KEY (other_id) REFERENCES other (id) NOT VALID;
  END IF;
END $$;
