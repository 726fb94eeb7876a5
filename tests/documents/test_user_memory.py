from datetime import UTC, datetime

from panda.documents.user_memory import MemoryEntry, MemoryFile


def test_memory_file_round_trip_in_seed_format():
    memory = MemoryFile(kind="preference", user_id="bob")
    assert memory.add(MemoryEntry(value="under $1500", key="budget", id="pref_1", confidence=0.8, source="turn_bob_000001",
                                  learned_at=datetime(2026, 1, 2, tzinfo=UTC)))
    assert memory.add(MemoryEntry(value="I prefer gaming laptops with RTX GPUs", id="pref_2"))
    assert not memory.add(MemoryEntry(value="i prefer  GAMING laptops with RTX GPUs", id="pref_3"))  # duplicate
    text = memory.render()
    assert "# User Preferences: bob\n\n## Budget Preferences\n\n- **budget:** under $1500 <!-- id=pref_1" in text
    assert "*Updated automatically by turn saver*" in text
    back = MemoryFile.parse(text, "preference", "bob")
    assert [(e.id, e.key, e.value, e.source, e.learned_at) for e in back.entries] == \
           [(e.id, e.key, e.value, e.source, e.learned_at) for e in memory.entries]


def test_preferences_follow_the_seed_template_and_read_back_from_any_layout():
    """Seed 003's User Preference Template: frontmatter, the four sections, Learned From."""
    from panda.documents.user_memory import preference_section

    memory = MemoryFile(kind="preference", user_id="bob", modified=datetime(2026, 2, 1, tzinfo=UTC))
    day = [datetime(2026, 1, d, tzinfo=UTC) for d in range(1, 6)]
    entries = [
        MemoryEntry(value="under $1000", key="budget", id="p1", source="turn_000001", learned_at=day[0], confidence=0.9),
        MemoryEntry(value="gaming laptops with RTX GPUs", key="likes", id="p2", preference_type="product",
                    source="turn_000001", learned_at=day[1], confidence=0.7),
        MemoryEntry(value="Lenovo over MSI brands", key="prefers", id="p3", source="turn_000002", learned_at=day[2]),
        MemoryEntry(value="buying from Best Buy stores", key="prefers", id="p4", session="s 1", learned_at=day[3]),
        MemoryEntry(value="hiking", key="likes", id="p5", preference_type="activity", session="s 1", learned_at=day[4]),
        MemoryEntry(value="Dell brand", key="likes", id="p6", learned_at=day[0], invalid_at=day[2]),
    ]
    for entry in entries:
        memory.add(entry)
    assert [preference_section(e) for e in entries[:5]] == [
        "Budget Preferences", "Category Preferences", "Brand Preferences", "Shopping Preferences", "Other Preferences"]
    text = memory.render()
    head, body = text.split("---\n", 2)[1:]
    assert "created: '2026-01-01T00:00:00Z'" in head and "status: active" in head and "confidence: 0.8" in head
    sections = [line for line in body.splitlines() if line.startswith("## ")]
    assert sections == ["## Budget Preferences", "## Category Preferences", "## Brand Preferences",
                        "## Shopping Preferences", "## Other Preferences", "## History", "## Learned From"]
    learned = body.split("## Learned From\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert learned == ["- turn_000001: budget, likes", "- turn_000002: prefers", "- session s 1: prefers, likes"]
    back = MemoryFile.parse(text, "preference", "bob")  # Learned From lines are no entries
    assert [(e.id, e.key, e.value, e.invalid_at) for e in back.entries] == \
           [(e.id, e.key, e.value, e.invalid_at) for e in memory.entries]
    assert back.render() == text
    old = "# User Preferences\n\n## General\n\n" + "\n".join(e.render() for e in entries)  # an earlier layout
    assert [e.id for e in MemoryFile.parse(old, "preference", "bob").entries] == [e.id for e in entries]
