"""Forgetting a deleted user's research turns in global notes (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from panda.documents.model import Document
from panda.privacy.forget import forget_in_note, forget_in_site_knowledge, note_hashes

T = datetime(2026, 3, 1, tzinfo=UTC)
DAVE, CAROL = "t_aaaaaaaaaaaaaaaaaaaa", "t_bbbbbbbbbbbbbbbbbbbb"


def _research(body: str, subtopic: str = "pineapple cake zebraquartz recipe") -> Document:
    return Document(id="note_1", kind="note", title="Pineapple Upside", primary_topic="pineapple.upside",
                    keywords=["pineapple", "zebraquartz"], scope="global", created_at=T, body=body,
                    extra={"artifact_type": "research", "topic": "pineapple upside", "subtopic": subtopic,
                           "tags": ["pineapple", "zebraquartz"]})


HEAD = "# Pineapple Upside\n\n## Key Findings\n\n- Bake 45 minutes ([source](https://b.com))\n\n_Provenance: `{c}`._"
UPDATE = ("## Update 2026-03-0{n} · `{h}`\n\n**Pages read:** 1\n\n- Use a 9-inch pan ([source](https://b.com))\n\n"
          "| [b.com](https://b.com) | 2026-03-0{n} | {q} |")


def test_a_note_only_the_user_made_is_removed():
    assert forget_in_note(_research(HEAD.format(c=DAVE)), {DAVE}) == ("removed", None)


def test_the_users_update_goes_and_the_creator_passes_to_the_next_contributor():
    body = "\n\n".join([HEAD.format(c=DAVE), UPDATE.format(n=2, h=CAROL, q="pineapple cake for a party"),
                        UPDATE.format(n=3, h=DAVE, q="zebraquartz pineapple pan size")])
    action, doc = forget_in_note(_research(body), {DAVE})
    assert action == "rewritten" and doc is not None
    assert DAVE not in doc.body and "zebraquartz" not in doc.model_dump_json()
    assert f"_Provenance: `{CAROL}`._" in doc.body and "Bake 45 minutes" in doc.body  # public findings stay
    assert doc.extra["subtopic"] == "pineapple upside" and note_hashes(doc) == {CAROL}  # the topic, no user text
    assert "party" in doc.extra["tags"]  # the tags come from the pages the remaining turns read


def test_another_users_note_is_unchanged_and_product_turns_are_filtered():
    note = _research(HEAD.format(c=CAROL), subtopic="cake")
    assert forget_in_note(note, {DAVE}) == ("unchanged", note)
    product = Document(id="prod_1", kind="note", title="Pan", primary_topic="product.pan", scope="global", created_at=T,
                       body=f"# Pan\n\n_Provenance: `{DAVE}`._", extra={"artifact_type": "product", "turns": [DAVE, CAROL]})
    action, doc = forget_in_note(product, {DAVE})
    assert action == "rewritten" and doc is not None and doc.extra["turns"] == [CAROL] and DAVE not in doc.body
    assert forget_in_note(doc.model_copy(update={"extra": {**doc.extra, "turns": [DAVE]}}), {DAVE})[0] == "removed"
    assert forget_in_site_knowledge({"visits": 3, "turns": [DAVE, CAROL]}, {DAVE}) == {"visits": 3, "turns": [CAROL]}
    assert forget_in_site_knowledge({"turns": [CAROL]}, {DAVE}) is None
