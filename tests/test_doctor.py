"""`panda check`: clean on a home the pipeline wrote; exit 1 listing each kind of damage."""

from __future__ import annotations

import json
from pathlib import Path

from panda.cli import main
from tests.jobs.conftest import turns

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "turns.jsonl"


def _check(home: Path, capsys) -> tuple[int, dict]:
    code = main(["check", "--home", str(home), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_check_is_clean_after_turns_and_lists_every_kind_of_damage(ctx, tmp_path, capsys):
    lines = [line for line in SAMPLE.read_text().splitlines() if '"alice"' in line or '"bob"' in line]
    turns(ctx, tmp_path, lines)
    home = ctx.vault.home
    ctx.catalog.close()
    code, report = _check(home, capsys)
    assert code == 0 and report["ok"], report["findings"]
    assert report["counts"]["links_checked"] > 0 and report["counts"]["catalog_turn_index"] == 6

    context = home / "users" / "alice" / "turns" / "turn_000002" / "context.md"
    context.write_text(context.read_text() + "\n[old plan](../turn_000099/context.md)\n[[no_such_note]]\n")
    (home / "Knowledge" / "Research" / "hamsters.md").write_text("# Hamsters\n\nAs Alice said, cages need space.\n")
    (home / "users" / "bob" / ".facts.md.x1y2.tmp").write_text("half a write")
    (home / "users" / "bob" / "turns" / "turn_000009").mkdir()
    (home / "users" / "bob" / "turns" / "turn_000009" / "context.md").write_text("# unfinished\n")
    (home / "Knowledge" / "Products" / "leak.md").write_text("see [turn](../../users/bob/turns/turn_000001/context.md)\n")
    from panda.catalog.store import Catalog

    catalog = Catalog(home / "catalog" / "panda.duckdb")
    catalog.con.execute("UPDATE documents SET reference_count = reference_count + 7 WHERE id = 'turn_alice_000001'")
    catalog.close()

    code, report = _check(home, capsys)
    found = report["findings"]
    assert code == 1 and not report["ok"]
    assert any("turn_000099/context.md" in f for f in found["links"])
    assert any("[[no_such_note]]" in f for f in found["links"])
    assert any("Knowledge/Products/leak.md: links into bob's private folder" in f for f in found["links"])
    assert any(".facts.md.x1y2.tmp: temporary file" in f for f in found["orphans"])
    assert any("turn_000009/: unfinished turn" in f for f in found["orphans"])
    assert any("hamsters.md: names user 'alice'" in f for f in found["privacy"])
    assert any("Knowledge/Products/leak.md: holds a private path" in f for f in found["privacy"])
    assert any("turn_alice_000001: differs from the vault (reference_count" in f for f in found["catalog"])

    (home / "Knowledge" / "Facts" / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    code, report = _check(home, capsys)
    found = report["findings"]
    assert code == 1 and any(f.startswith("Knowledge/Facts/broken.md: frontmatter does not parse") for f in found["frontmatter"])
    assert found["catalog"] == ["not compared: reindex cannot read the vault (Knowledge/Facts/broken.md, see frontmatter)"]
