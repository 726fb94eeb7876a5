"""Two users in one home: nothing private of one reaches the other, or any global file (DESIGN §10).

zoe's research turns carry her name, phone, city and her daughter's name; carol then researches the
same topic. Global files (Knowledge/, Meta/, Logs/Changes/, site_knowledge/) hold none of zoe's
details nor any path or id of her turns; carol's search, gather, link-following and retrieve never
return zoe's documents, and carol's turn folder holds none of zoe's strings.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime

import pytest

from panda.memory.links import follow_links
from panda.memory.search import SearchRequest
from tests.conftest import SHARED_DATA
from tests.jobs.conftest import turns

PAGES = SHARED_DATA / "webpages"
ZOE = ("Zoe", "Quartermaine", "918-555-0142", "Tulsa", "Wilhelmina", "users/zoe", "turn_zoe")
pytestmark = pytest.mark.skipif(not (PAGES / "manifest.json").exists(), reason="../shared/data/webpages is absent")


def _line(user: str, n: int, day: int, query: str) -> str:
    return json.dumps({"user_id": user, "session_id": f"{user}-chat", "turn_id": f"{user}{n}",
                       "timestamp": f"2026-03-{day:02d}T10:00:00Z", "query": query})


def _hits(paths, needles) -> list[str]:
    return [f"{p}: {n}" for p in paths if p.is_file() for n in needles if n.lower() in p.read_text(errors="ignore").lower()]


def test_research_turns_of_two_users_keep_private_details_private(ctx, tmp_path):
    from panda.research.corpus import ingest_corpus

    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for page in PAGES.glob("*.html"):
        shutil.copy(page, crawl / page.name)
    shutil.copy(PAGES / "manifest.json", crawl / "manifest.json")
    ingest_corpus(ctx, crawl, datetime(2026, 3, 1, tzinfo=UTC))
    turns(ctx, tmp_path, [
        _line("zoe", 1, 5, "My name is Zoe Quartermaine, my phone is 918-555-0142 and I live in Tulsa. "
                           "What is the best pineapple upside down cake recipe?"),
        _line("zoe", 2, 6, "I love baking with my daughter Wilhelmina, which cake recipe is best for kids?"),
    ], "zoe.jsonl")
    home = ctx.vault.home
    assert list(home.glob("Knowledge/Research/*.md")), "zoe's research left no knowledge note"
    shared = [p for d in ("Knowledge", "Meta", "Logs/Changes", "site_knowledge") for p in (home / d).rglob("*")]
    assert _hits(shared, ZOE) == []

    turns(ctx, tmp_path, [_line("carol", 1, 7, "What is the best pineapple upside down cake recipe?")], "carol.jsonl")
    carol = home / "users" / "carol"
    assert _hits(list(carol.rglob("*")), ZOE) == []
    prompts = ctx.catalog.con.execute("SELECT count(*) FROM retrieval_operations WHERE user_id = 'carol' "
                                      "AND list_has_any(result_ids, (SELECT list(id) FROM documents WHERE owner_user = 'zoe'))"
                                      ).fetchone()[0]
    assert prompts == 0
    for result in ctx.memory.search(SearchRequest("Zoe Quartermaine pineapple cake Tulsa", user_id="carol", record=False)):
        assert result.scope == "global" or not result.doc_path.startswith("users/zoe")
    zoe_context = "users/zoe/turns/turn_000001/context.md"
    assert ctx.memory.retrieve(doc_path=zoe_context, user_id="carol") is None
    assert ctx.memory.retrieve(doc_id="turn_zoe_000001", user_id="carol") is None
    assert ctx.memory.retrieve(doc_id="turn_zoe_000001", user_id="zoe") is not None
    # A note that (from an older Panda) still links into zoe's turn: carol's link-following skips it.
    note = home / "Knowledge" / "Research" / "old_note.md"
    note.write_text("---\nid: old\n---\nSee [turn](../../users/zoe/turns/turn_000001/context.md)\n")
    followed = follow_links(ctx.vault.layout, ["Knowledge/Research/old_note.md"], 2, 400, "carol")
    assert followed == []
    assert follow_links(ctx.vault.layout, ["Knowledge/Research/old_note.md"], 2, 400, "zoe")
