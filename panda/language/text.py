"""Text helpers for keyword search (pure): tokenising, stop words, a light stemmer.

Left out: language detection and real stemming libraries; Panda's keyword leg only needs to match
the same word forms a user tends to repeat ("laptops" ~ "laptop", "moved" ~ "move").
"""

from __future__ import annotations

import re
from collections import Counter

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
STOP_WORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under about as is
    are was were be been being am do does did doing have has had having i me my mine we us our you your
    he him his she her it its they them their this that these those what which who whom whose when where
    why how there here so than too very can could should would will shall may might must just not no nor
    only own same such both each few more most other some any all again further once up down out off also
    s t don't i'm it's let's im ive i've""".split()
)


def stem(word: str) -> str:
    """Strip a few common English suffixes.

    Example: stem('laptops') -> 'laptop'; stem('studies') -> 'study'; stem('moved') -> 'mov';
    stem('move') -> 'mov'; stem('moving') -> 'mov'; stem('glass') -> 'glass'.
    """
    if "'" in word:
        word = word.split("'", 1)[0]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2] if not word.endswith("eed") else word[:-1]
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    if len(word) > 3 and word.endswith("e") and not word.endswith("ee"):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case word stems without stop words. Example: tokenize('The Laptops I liked') -> ['laptop', 'lik']."""
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS and len(t) > 1]


def term_frequencies(text: str) -> Counter[str]:
    return Counter(tokenize(text))


def words(text: str) -> list[str]:
    """Plain lower-case words (no stemming), used for fuzzy name matching."""
    return _TOKEN.findall(text.lower())


_QUESTION = re.compile(r"^\s*(?:who|whom|whose|what|where|which|when|why|how|does|do|did|is|are|was|were|has|have|"
                       r"had|can|could|should|would|will|tell me|remind me)\b|\?\s*$", re.I)


def is_question(text: str) -> bool:
    """Example: is_question('Where does Dana live') -> True; is_question('I live in Boston.') -> False;
    is_question('ferret Noodle') -> False; is_question('Suggest a hike?') -> True."""
    return bool(_QUESTION.search(text))


_ADVICE = re.compile(r"\b(?:should|could|can you|could you|would you|will you|recommend|suggest|ideas?|tips?|advice|"
                     r"help me|how (?:can|should|could|might) I|what's a good|any good)\b", re.I)


def asks_for_advice(text: str) -> bool:
    """Whether a message asks for a suggestion or advice rather than for what is so. Example:
    asks_for_advice('What could I eat after a run?') -> True; asks_for_advice('Which city do I live in now?') -> False;
    asks_for_advice('How do I get to the office these days?') -> False."""
    return bool(_ADVICE.search(text))
