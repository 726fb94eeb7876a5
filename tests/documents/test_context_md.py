import pytest

from panda.documents.context_md import ContextDocument
from panda.errors import SectionRuleError


def full_doc() -> ContextDocument:
    doc = ContextDocument(meta={"id": "turn_a_000001"}, title="Turn 1 · a")
    doc.write("0", "**Original query:** what now?")
    doc.write("1", "**Decision:** PROCEED")
    doc.write("2", "### Prior Research: x\n- fact")
    doc.write("3", "**Goals:**\n- G1: answer")
    doc.write("4", "#### Iteration 1\n- memory.search")
    doc.write("4", "#### Iteration 2\n- memory.save")
    doc.close("4")
    doc.write("5", "first answer")
    doc.write("6", "**Decision:** REVISE")
    return doc


def test_immutable_sections_cannot_be_rewritten():
    doc = full_doc()
    for key in ("0", "1", "2", "3", "5", "6"):
        with pytest.raises(SectionRuleError):
            doc.write(key, "again")


def test_tool_log_accumulates_within_an_attempt():
    doc = full_doc()
    assert "Iteration 1" in doc.latest("4") and "Iteration 2" in doc.latest("4")
    assert len(doc.sections["4"]) == 1


def test_revise_and_retry_add_labelled_attempts_and_keep_history():
    doc = full_doc()
    doc.begin_revise()
    doc.write("5", "second answer")
    doc.write("6", "**Decision:** RETRY")
    doc.begin_retry()
    doc.write("3", "new plan")
    doc.write("4", "new tools")
    doc.write("5", "third answer")
    doc.write("6", "**Decision:** APPROVE")
    doc.write("appendix", "- **Outcome:** APPROVE")
    text = doc.render()
    assert "### Attempt 2 (REVISE)\n\nsecond answer" in text
    assert "### Attempt 3 (RETRY)\n\nthird answer" in text
    assert "### Attempt 3 (RETRY)\n\nnew plan" in text and "### Attempt 3 (RETRY)\n\nnew tools" in text
    assert "Attempt 2 (RETRY)" not in text  # one number per attempt, the same in every section it wrote
    assert "first answer" in text  # nothing is erased
    assert "## Turn Summary Appendix\n\n- **Outcome:** APPROVE" in text  # the appendix is never labelled
    assert doc.revision_count() == 1 and doc.attempt == 2  # the REVISE; the RETRY is an attempt
    parsed = ContextDocument.parse(text)
    assert (parsed.number, parsed.attempt) == (3, 2)
    assert ContextDocument.parse(text).revision_count() == 1
    with pytest.raises(SectionRuleError):
        doc.write("6", "after the appendix")


def test_render_parse_round_trip():
    doc = full_doc()
    doc.begin_revise()
    doc.write("5", "second answer")
    doc.write("6", "**Decision:** APPROVE")
    doc.write("appendix", "- **Turn:** 1")
    parsed = ContextDocument.parse(doc.render())
    assert parsed.meta == doc.meta and parsed.title == doc.title
    for key in ("0", "1", "2", "3", "4", "5", "6", "appendix"):
        assert [(e.number, e.label, e.body) for e in parsed.sections[key]] == \
               [(e.number, e.label, e.body) for e in doc.sections[key]], key
    assert parsed.render() == doc.render()


def test_compaction_only_for_the_open_tool_log():
    doc = ContextDocument()
    doc.write("0", "q")
    doc.write("4", "long log")
    doc.compact("4", "short log")
    assert doc.latest("4") == "short log"
    doc.close("4")
    with pytest.raises(SectionRuleError):
        doc.compact("4", "x")
    with pytest.raises(SectionRuleError):
        doc.compact("0", "x")
