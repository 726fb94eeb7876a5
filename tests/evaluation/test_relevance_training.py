"""Labelled searches for the learned relevance, and the learned relevance inside memory.search."""

from datetime import UTC, datetime

import numpy as np
import pytest

from panda.catalog.conversations import Conversations
from panda.conversations.ingest import ingest_messages
from panda.conversations.messages import MessageInput
from panda.evaluation.relevance_training import labelled_searches, recall_at
from panda.evaluation.runner import Question
from panda.memory import relevance_model
from panda.memory.relevance_model import FEATURES, RelevanceModel
from panda.memory.search import SearchRequest

CONVERSATION = [  # (dia id, session, when, speaker, text)
    ("D1:1", "s1", "2023-05-08T13:00:00", "Caroline", "I went to an LGBTQ support group yesterday and it was so powerful."),
    ("D1:2", "s1", "2023-05-08T13:01:00", "Melanie", "That's great! I painted a lake sunrise last week, painting calms me."),
    ("D1:3", "s1", "2023-05-08T13:02:00", "Caroline", "Painting is wonderful. I paint too, mostly abstract pieces."),
    ("D2:1", "s2", "2023-07-20T10:00:00", "Melanie", "We went camping in the mountains with the kids yesterday."),
    ("D2:2", "s2", "2023-07-20T10:01:00", "Caroline", "Camping sounds fun! I went hiking by the lake last weekend."),
]
NOW = datetime(2023, 12, 1, tzinfo=UTC)


def ingest(ctx) -> None:
    ingest_messages(ctx, [MessageInput("friends", session, datetime.fromisoformat(when).replace(tzinfo=UTC), "user",
                                       text, who, dia) for dia, session, when, who, text in CONVERSATION])


def question(item: str, text: str, evidence: list[str], category: int = 4) -> Question:
    return Question(item, "friends", str(category), text, None, NOW, evidence, locomo_category=category)


def test_labelled_searches_mark_the_evidence_among_the_candidates(ctx):
    ingest(ctx)
    questions = [question("q1", "What does Melanie paint?", ["D1:2"]),
                 question("q2", "Where did they go camping?", ["D2:1", "D9:9"], category=1),
                 question("q3", "Unanswerable", [], category=5)]
    searches = labelled_searches(ctx.memory, Conversations(ctx.catalog), questions)
    assert [s.conversation for s in searches] == ["friends", "friends"]  # no evidence, no labelled search
    assert [s.category for s in searches] == [4, 1]
    first, second = searches
    assert first.features.shape == (len(first.labels), len(FEATURES)) and first.labels.sum() == 1.0
    assert second.evidence == 2 and second.labels.sum() == 1.0  # D9:9 is in no candidate: recall can reach 0.5
    cosine = FEATURES.index("cosine")
    scores = [s.features[:, cosine] for s in searches]
    assert recall_at(searches, scores, k=len(CONVERSATION)) == pytest.approx((1.0 + 0.5) / 2)
    assert recall_at(searches, scores, k=5, categories=(4,)) == 1.0


def test_search_ranks_by_the_learned_relevance_when_one_goes_with_the_embedder(ctx, monkeypatch):
    ingest(ctx)

    def top(query: str) -> str:
        return ctx.memory.search(SearchRequest(query, user_id="friends", kinds=["message"], now=NOW, record=False))[0].snippet

    # A model that only likes the other speaker's messages: a search must follow it when it is on.
    contrary = RelevanceModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES),
                              tuple(3.0 if n == "other_speaker" else 0.0 for n in FEATURES), 0.0)
    monkeypatch.setattr(type(ctx.memory), "relevance_model", lambda self: contrary)
    assert top("What does Melanie paint?").startswith("Caroline:")
    monkeypatch.setattr(type(ctx.memory), "relevance_model", lambda self: None)  # hand-set relevance
    assert top("What does Melanie paint?").startswith("Melanie: That's great! I painted a lake sunrise")


def test_the_policy_turns_the_learned_relevance_off(ctx):
    embedder_model = getattr(ctx.memory.embedder, "relevance_model", None)
    assert ctx.memory.relevance_model() is embedder_model
    ctx.memory.policy = ctx.memory.policy.model_copy(update={"retrieval": ctx.memory.policy.retrieval.model_copy(
        update={"learned_relevance": False})})
    assert ctx.memory.relevance_model() is None


def test_the_shipped_model_ranks_this_conversation_sensibly(ctx):
    """The model that goes with the test embedder (tuned default or base) answers the plain questions."""
    if ctx.memory.relevance_model() is None:
        pytest.skip("no learned relevance goes with this embedder")
    ingest(ctx)
    got = {q: ctx.memory.search(SearchRequest(q, user_id="friends", kinds=["message"], now=NOW, record=False))[0].snippet
           for q in ("What does Melanie paint?", "What does Caroline paint?", "Where did Melanie go camping?")}
    assert got["What does Melanie paint?"].startswith("Melanie: That's great! I painted a lake sunrise")
    assert got["What does Caroline paint?"].startswith("Caroline: Painting is wonderful")
    assert got["Where did Melanie go camping?"].startswith("Melanie: We went camping")
    assert np.isfinite(ctx.memory.relevance_model().weights).all()
    assert relevance_model.FEATURES == ctx.memory.relevance_model().names
