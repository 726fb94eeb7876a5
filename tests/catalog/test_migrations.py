"""Schema changes are named migrations applied in order, each once, each in its own transaction; `pending` reads
what is left without applying anything (catalog/migrations.py)."""

import duckdb
import pytest

from panda.catalog import migrations
from panda.catalog.migrations import MIGRATIONS, applied, migrate, pending


def test_a_fresh_database_applies_every_migration_once_in_order():
    con = duckdb.connect(":memory:")
    names = [name for name, _ in MIGRATIONS]
    assert names == sorted(names) and len(set(names)) == len(names)  # m001, m002, ...: the order is the name order
    assert pending(con) == names
    assert pending(con) == names  # reading what is pending applies nothing
    assert migrate(con) == names
    assert pending(con) == [] and applied(con) == set(names)
    assert migrate(con) == []  # a second run does nothing


def test_a_failing_migration_rolls_back_and_stays_pending(monkeypatch):
    con = duckdb.connect(":memory:")
    migrate(con)

    def m999_broken(c: duckdb.DuckDBPyConnection) -> None:
        c.execute("CREATE TABLE half_made (x INTEGER)")
        raise RuntimeError("disk full")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, ("m999_broken", m999_broken)])
    with pytest.raises(RuntimeError, match="disk full"):
        migrations.migrate(con)
    assert migrations.pending(con) == ["m999_broken"]
    tables = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert "half_made" not in tables  # nothing of it was kept


def test_m015_makes_an_older_catalogs_postings_again_with_the_undoubling_stemmer():
    # A catalog written before the stemmer undoubled ("running" was "runn") finds "run" in it after the migration.
    con = duckdb.connect(":memory:")
    for name, fn in MIGRATIONS:
        if name < "m015":
            fn(con)
            con.execute("CREATE TABLE IF NOT EXISTS _migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMPTZ)")
            con.execute("INSERT INTO _migrations VALUES (?, now())", [name])
    con.execute("INSERT INTO documents (id, kind, search_text, doc_length) VALUES "
                "('d1', 'context', 'I switched from running to cycling', 4)")
    con.execute("INSERT INTO postings VALUES ('runn', 'd1', 1), ('switch', 'd1', 1), ('cycl', 'd1', 1)")
    assert migrate(con) == ["m015_postings_undoubled"]
    terms = {row[0] for row in con.execute("SELECT term FROM postings WHERE doc_id = 'd1'").fetchall()}
    assert "run" in terms and "runn" not in terms and "cycl" in terms
