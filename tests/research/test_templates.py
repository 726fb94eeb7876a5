"""Knowledge notes are written from Meta/Templates (editable by the user); product notes carry seed 003's
Specifications table, Community Sentiment, Pros and Cons."""

from __future__ import annotations

from datetime import UTC, datetime

from panda.config import Policy
from panda.documents.templates import DEFAULTS, render, write_defaults
from panda.documents.vault import Vault
from panda.research.knowledge import product_notes, research_note, spec_rows

NOW = datetime(2026, 3, 5, 10, 0, tzinfo=UTC)


def _data(topic: str = "laptop.gaming", turn: str = "prov_1") -> dict:
    claims = [{"text": "The Lenovo LOQ 15 is an excellent value and a great pick.", "url": "https://a.example/r"},
              {"text": "Lenovo LOQ 15 screens are disappointing and dim.", "url": "https://a.example/r"},
              {"text": "Prices of RTX laptops fell in March.", "url": "https://a.example/r"}]
    page = {"url": "https://a.example/r", "domain": "a.example", "title": "Review", "summary": "Budget gaming laptops.",
            "claims": claims, "products": [{"name": "Lenovo LOQ 15", "price": "$799", "vendor": "Best Buy",
                                            "specs": ["GPU: RTX 4060", "144Hz display"]}]}
    return {"topic": topic, "turn_id": turn, "pages": [page], "query": "best gaming laptop", "intent": "informational",
            "decay": "time-sensitive", "quality": {"overall": 0.8}, "private_words": []}


def test_render_fills_known_fields_and_leaves_others():
    assert render("# {{title}}\n{{ other }}", {"title": "Cake"}) == "# Cake\n{{ other }}\n"
    assert spec_rows(["GPU: RTX 4060", "144Hz display"]) == ["| GPU | RTX 4060 |", "| Feature | 144Hz display |"]


def test_product_note_has_the_seed_sections(tmp_path):
    vault = Vault(tmp_path)
    research_note(vault, Policy(), _data(), NOW, ["Lenovo LOQ 15"])
    [change] = product_notes(vault, Policy(), _data(), "laptop_gaming", NOW)
    text = (tmp_path / change.path).read_text()
    assert "| Spec | Value |" in text and "| GPU | RTX 4060 |" in text and "| Feature | 144Hz display |" in text
    assert "## Price History" in text and "| 2026-03-05 | Best Buy | $799 |" in text
    sentiment = text.split("## Community Sentiment", 1)[1].split("## Pros", 1)[0]
    assert "a.example: The Lenovo LOQ 15 is an excellent value" in sentiment and "Prices of RTX" not in sentiment
    pros = text.split("## Pros", 1)[1].split("## Cons", 1)[0]
    cons = text.split("## Cons", 1)[1].split("## Related", 1)[0]
    assert "excellent value" in pros and "disappointing" not in pros and "disappointing and dim" in cons


def test_an_edited_template_shapes_the_next_note(tmp_path):
    vault = Vault(tmp_path)
    assert write_defaults(vault) == ["Meta/Templates/research_note.md", "Meta/Templates/product_note.md"]
    path = tmp_path / "Meta" / "Templates" / "research_note.md"
    assert path.read_text() == DEFAULTS["research_note"]
    path.write_text("# {{title}}\n\n## What we found\n\n{{findings}}\n\n## My notes\n\n(write here)\n")
    change = research_note(vault, Policy(), _data(topic="laptop.budget"), NOW, [])
    text = (tmp_path / change.path).read_text()
    assert "## What we found" in text and "## My notes" in text and "## Sources" not in text
    assert "excellent value" in text
    assert write_defaults(vault) == []  # the user's template is kept
