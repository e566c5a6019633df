-- family: sql-column-type-change
-- source: squawk issue #528 (DDL inside DO $$ ... $$ not detected, open)
-- expect: flag sql-column-type-change
-- squawk: pass
-- file
do $$
    begin
        if (SELECT character_maximum_length < 512
              FROM information_schema.columns
             WHERE table_name = 'users' AND column_name = 'email')
        then ALTER TABLE users ALTER COLUMN email TYPE VARCHAR(512);
        end if;
    end
$$;
