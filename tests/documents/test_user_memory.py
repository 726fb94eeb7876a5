from datetime import UTC, datetime

from panda.documents.user_memory import MemoryEntry, MemoryFile


def test_memory_file_round_trip_in_seed_format():
    memory = MemoryFile(kind="preference", user_id="bob")
    assert memory.add(MemoryEntry(value="under $1500", key="budget", id="pref_1", confidence=0.8, source="turn_bob_000001",
                                  learned_at=datetime(2026, 1, 2, tzinfo=UTC)))
    assert memory.add(MemoryEntry(value="I prefer gaming laptops with RTX GPUs", id="pref_2"))
    assert not memory.add(MemoryEntry(value="i prefer  GAMING laptops with RTX GPUs", id="pref_3"))  # duplicate
    text = memory.render()
    assert "# User Preferences\n\n## General\n\n- **budget:** under $1500 <!-- id=pref_1" in text
    assert "*Updated automatically by turn saver*" in text
    back = MemoryFile.parse(text, "preference", "bob")
    assert [(e.id, e.key, e.value, e.source, e.learned_at) for e in back.entries] == \
           [(e.id, e.key, e.value, e.source, e.learned_at) for e in memory.entries]
