from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from panda.documents.model import Document

text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=200)
names = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))


@settings(max_examples=60, deadline=None)
@given(title=text, body=text, topic=st.lists(names, min_size=1, max_size=3).map(".".join),
       keywords=st.lists(names, max_size=5), quality=st.floats(0, 1), created=times,
       expires=st.none() | times, refs=st.integers(0, 10_000), extra_value=text)
def test_markdown_round_trip_is_lossless(title, body, topic, keywords, quality, created, expires, refs, extra_value):
    doc = Document(title=title, body=body, primary_topic=topic, keywords=keywords, quality=quality,
                   created_at=created, expires_at=expires, reference_count=refs, owner_user="alice",
                   content_types=["memory"], links=["[[other]]"], extra={"my_obsidian_prop": extra_value})
    back = Document.from_markdown(doc.to_markdown())
    assert back == doc


def test_markdown_is_frontmatter_plus_body():
    doc = Document(id="mem_1", title="Budget", body="Budget is **$800**.", keywords=["budget"])
    text = doc.to_markdown()
    assert text.startswith("---\nid: mem_1\n")
    assert text.rstrip().endswith("Budget is **$800**.")
    assert "tags:\n- budget" in text


def test_trust_is_laplace_smoothed():
    assert Document(validation_count=4, validation_success=3).trust == (3 + 1) / (4 + 2)
    assert Document().trust == 0.5
