"""Property tests: the vault's parsers read back exactly what the renderers wrote."""

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from panda.documents.context_md import SECTION_KEYS, ContextDocument
from panda.documents.transcript import SessionTranscript, TranscriptMessage

lines = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40), min_size=1,
                 max_size=5).map(lambda ls: "\n".join(ls).strip()).filter(bool)
tricky = st.sampled_from(["### Attempt 2 (RETRY)", "## §3 Plan", "### Bob · 2026-01-01T00:00:00Z",
                          '<!-- panda:message {"id": "x", "role": "user"} -->', "---", "# Title",
                          "    ## §3 Plan", "        ### Attempt 1", "    ### Bob · 2026-01-01T00:00:00Z"])
bodies = st.one_of(lines, st.tuples(lines, tricky, lines).map("\n".join))
times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(bodies, st.sampled_from(["user", "assistant"]), times), min_size=1, max_size=5))
def test_transcript_round_trip(messages):
    transcript = SessionTranscript("alice", "chat", 2, [
        TranscriptMessage(f"msg_{i}", role, "Alice" if role == "user" else "panda", when, body)
        for i, (body, role, when) in enumerate(messages)])
    assert SessionTranscript.parse(transcript.render()) == transcript


@settings(max_examples=60, deadline=None)
@given(st.lists(bodies, min_size=8, max_size=8), st.booleans())
def test_context_md_round_trip(section_bodies, with_revision):
    doc = ContextDocument(meta={"id": "turn_x"}, title="Turn 1 · x")
    for key, body in zip(SECTION_KEYS[:-1], section_bodies, strict=False):
        doc.write(key, body)  # bodies may contain lines that look like section or attempt headings
    if with_revision:
        doc.begin_revise()
        doc.write("5", "revised")
        doc.write("6", "approved")
    doc.write("appendix", "- **Turn:** 1")
    parsed = ContextDocument.parse(doc.render())
    assert parsed.render() == doc.render()
    assert {k: [(e.number, e.label, e.body) for e in v] for k, v in parsed.sections.items()} == \
           {k: [(e.number, e.label, e.body) for e in v] for k, v in doc.sections.items()}
