CREATE TABLE affiliations (
    name    text PRIMARY KEY,
    country text NOT NULL
);

INSERT INTO affiliations (name, country) VALUES
    ('CNRS', 'FR'),
    ('Max Planck Society', 'DE');

ALTER TABLE researchers
    ADD CONSTRAINT researchers_affiliation_fk
    FOREIGN KEY (affiliation) REFERENCES affiliations (name);
