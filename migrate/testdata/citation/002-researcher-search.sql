-- A function whose body holds semicolons; a string too: 'a;b'.
CREATE FUNCTION researcher_label(r researchers) RETURNS text
LANGUAGE plpgsql STABLE AS $body$
BEGIN
    IF r.affiliation IS NULL THEN
        RETURN r.full_name;
    END IF;
    RETURN r.full_name || ' (' || r.affiliation || '; ' || coalesce(r.orcid, 'no ORCID') || ')';
END;
$body$;

COMMENT ON FUNCTION researcher_label(researchers) IS 'Display label; used by the search page.';
