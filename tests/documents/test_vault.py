from datetime import UTC, datetime

from panda.documents.model import Document
from panda.documents.user_memory import MemoryEntry
from panda.documents.vault import COUNTERS, Vault


def test_counters_written_back_to_files_and_memory_entries(tmp_path):
    vault = Vault(tmp_path)
    doc = vault.write_document(Document(id="mem_1", owner_user="alice", body="budget is $800"))
    memory = vault.memory_file("alice", "fact")
    memory.add(MemoryEntry(value="lives in Boston", id="fact_1", learned_at=datetime(2026, 1, 1, tzinfo=UTC)))
    rel = vault.write_memory_file(memory, datetime(2026, 1, 1, tzinfo=UTC))
    deltas = {"usage_count": 1, "reference_count": 2, "validation_count": 1, "validation_success": 1}
    for path in (doc.doc_path, f"{rel}#fact_1"):
        vault.update_counters(path, deltas)
        vault.update_counters(path, {"validation_count": 1})
    reread = vault.read_document(doc.doc_path)
    entry_doc = next(d for d in vault.iter_documents() if d.id == "fact_1")
    for item in (reread, entry_doc):
        assert [getattr(item, c) for c in COUNTERS] == [1, 2, 2, 1]
