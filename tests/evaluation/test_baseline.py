"""The BM25 baseline and the categories 1-4 headline (pure)."""

from collections import Counter
from dataclasses import dataclass, field

from panda.evaluation.baseline import bm25_rank, bm25_recall
from panda.evaluation.runner import summarise


@dataclass
class Msg:
    user_id: str
    content: str
    external_id: str | None


@dataclass
class Q:
    user_id: str
    question: str
    category: str
    evidence: list[str] = field(default_factory=list)


def test_bm25_ranks_by_term_weight_and_recall_is_per_conversation():
    assert bm25_rank(["cat"], [Counter({"dog": 1}), Counter({"cat": 2})]) == [1, 0]
    messages = [Msg("c1", "I adopted a cat named Miso", "D1:1"), Msg("c1", "The weather is nice", "D1:2"),
                Msg("c2", "My cat is called Tom", "D1:1")]
    questions = [Q("c1", "What is the cat called?", "4", ["D1:1"]), Q("c1", "How is the weather?", "5", ["D1:2"]),
                 Q("c1", "What did Miso eat?", "1", ["D1:2"])]
    out = bm25_recall(messages, questions, [1])
    assert out["recall@1"] == round(2 / 3, 4)  # the adversarial one counts overall ...
    assert out["recall@1_cat1_4"] == 0.5  # ... but not in the categories 1-4 headline


def test_summary_reports_the_category_1_4_headline_question_weighted():
    def item(category, r10):
        return {"category": category, "recall": {"10": r10}, "f1": None, "em": None, "abstention_expected": False,
                "abstained": None, "context_tokens": None}

    metrics = summarise([item("1", 0.0), item("4", 1.0), item("4", 1.0), item("5", 0.0)], [10], {})
    assert metrics["recall@10_cat1_4"] == round(2 / 3, 4) and metrics["recall@10"] == 0.5
    assert metrics["category_names"]["1"] == "multi-hop"
