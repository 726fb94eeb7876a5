from panda.config import ContextPolicy
from panda.documents.budgets import (
    TRUNCATION_MARK,
    count_words,
    estimate_tokens,
    over_budget,
    section_budget,
    truncate_to_words,
)


def test_token_estimate_and_section_two_cap():
    assert estimate_tokens("word " * 300) == 400
    policy = ContextPolicy()
    assert section_budget("2", policy) == 1500  # min(1500 words, 2000 tokens * 3/4)
    tight = ContextPolicy(gather_token_cap=400)
    assert section_budget("2", tight) == 300
    assert section_budget("5", policy) == 600


def test_over_budget_and_truncation_keep_whole_lines():
    policy = ContextPolicy(section_word_budgets={"6": 4})
    assert over_budget("6", "a b c d e", policy)
    assert not over_budget("6", "a b c d", policy)
    assert truncate_to_words("a b c\nd e f", 4) == "a b c\nd\n" + TRUNCATION_MARK
    assert truncate_to_words("a b", 4) == "a b"
    assert count_words(truncate_to_words("x " * 50, 10).replace(TRUNCATION_MARK, "")) == 10
