"""Word and token budgets for context.md sections (pure functions).

Seed 002: every section has a word budget; an overflowing section is compressed by the NERVES role,
and §2 is capped at 2,000 tokens. Tokens are estimated from words (English averages ~0.75 words a
token), which keeps this module free of any tokenizer. Truncation is the last resort after
compression and keeps whole lines where it can.
"""

from __future__ import annotations

import math
import re

from panda.config import ContextPolicy

_WORD = re.compile(r"\S+")
TOKENS_PER_WORD = 4 / 3
TRUNCATION_MARK = "[... truncated to fit the section budget]"


def count_words(text: str) -> int:
    """Example: count_words('two words') -> 2."""
    return len(_WORD.findall(text))


def estimate_tokens(text: str) -> int:
    """Example: 300 words -> ceil(300 * 4/3) = 400 tokens."""
    return math.ceil(count_words(text) * TOKENS_PER_WORD)


def section_budget(key: str, policy: ContextPolicy) -> int:
    """Word budget of a section; §2 also honours the token cap.

    Example: with budgets {'2': 1500} and gather_token_cap 2000 -> min(1500, floor(2000 * 3/4)) = 1500.
    """
    words = policy.section_word_budgets.get(key, 1000)
    if key == "2":
        words = min(words, math.floor(policy.gather_token_cap / TOKENS_PER_WORD))
    return words


def over_budget(key: str, text: str, policy: ContextPolicy) -> bool:
    return count_words(text) > section_budget(key, policy)


def truncate_to_words(text: str, limit: int) -> str:
    """Keep whole lines while they fit, then cut the last line at `limit` words and mark the cut.

    Example: truncate_to_words('a b c\\nd e f', 4) -> 'a b c\\nd\\n' + TRUNCATION_MARK.
    """
    if count_words(text) <= limit:
        return text
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        n = count_words(line)
        if used + n <= limit:
            kept.append(line)
            used += n
            continue
        room = limit - used
        if room > 0:
            kept.append(" ".join(line.split()[:room]))
        break
    return "\n".join(kept).rstrip() + "\n" + TRUNCATION_MARK
