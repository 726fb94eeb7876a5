"""Answer and retrieval metrics (pure): token F1, exact match, abstention, recall@k.

Normalisation follows SQuAD/LoCoMo: lower case, drop punctuation and articles, collapse spaces. Punctuation is
any Unicode punctuation, not only ASCII's: “Miso.” is the word miso, as "Miso." is.
LoCoMo quirks (upstream eval): multi-hop answers are scored by F1 over comma-separated sub-answers;
open-domain answers use only the part before ';'. Abstention is detected from phrases like
"not mentioned", "I don't know", "no information".
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_ABSTAIN = re.compile(
    r"\b(not (?:been )?mentioned|no (?:[a-z]+ )?(?:information|mention|record|details?|memory|memories)|no idea|"
    r"(?:do not|don't|doesn't|does not) know|"
    r"unknown|(?:is|it's|it is) (?:not clear|unclear)|not (?:sure|specified|stated|provided|available|known|documented|recorded)|"
    r"not enough (?:[a-z]+ )?(?:information|info|details?|context|data)|insufficient (?:information|details?|context|data)|"
    r"cannot (?:answer|determine|find)|can't (?:answer|tell|find)|"
    r"never (?:mentioned|said|told)|did(?:n't| not) (?:mention|say|tell)|"
    r"(?:have not|haven't|has not|hasn't) (?:told|mentioned|said|shared|given))\b", re.I)


_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_CURRENCY = re.compile(r"[£€¥₹]")  # string.punctuation has "$" but not these
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)  # "the 19th of April" says "19 April"


def normalize(text: str) -> str:
    """Example: normalize('The Cat, sat!') -> 'cat sat'; normalize('“Miso.”') -> 'miso'."""
    text = str(text).lower()
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith("P") and ch not in "$+<=>^`|~")
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    """Example: token_f1('Caroline went to Paris', 'Paris') -> 2*(1/4*1)/(1/4+1) = 0.4."""
    p, g = normalize(prediction).split(), normalize(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, gold: str) -> float:
    """Example: exact_match('The Paris.', 'paris') -> 1.0."""
    return float(normalize(prediction) == normalize(gold))


def answer_contains(prediction: str, gold: str) -> bool:
    """Every word of the expected answer appears in the answer (the sample turns' correctness).

    Example: answer_contains('Your hamster is called Biscuit.', 'Biscuit') -> True;
    answer_contains('You said $1,000.', '$1000') -> True; answer_contains('I do not know.', 'Biscuit') -> False;
    a possessive names its owner: answer_contains("You work at St Mary’s hospital.", 'St Mary') -> True; a currency's
    sign is punctuation as "$" is: answer_contains("You've saved £12,000.", '12,000') -> True (set N); a hyphen parts
    words: answer_contains('Your topic is flood-resilient housing.', 'flood') -> True (set M); a day's ordinal is its
    number: answer_contains('It was stolen on the 19th of April.', '19 April') -> True (set S)."""
    prediction, gold = (_ORDINAL.sub(r"\1", _CURRENCY.sub("", str(text))).replace("-", " ") for text in (prediction, gold))
    words = set(normalize(prediction).split()) | set(normalize(_POSSESSIVE.sub("", prediction)).split())
    wanted = normalize(gold).split()
    return bool(wanted) and all(w in words for w in wanted)


def answer_correct(prediction: str, expected: str | None, stale: str | None = None, abstain: bool = False) -> bool:
    """A scored turn's verdict: one of the expected answers ('|' between alternatives) in the reply, none of the stale
    values (a fact the user has since changed), and an abstention where nothing was ever said.

    Example: answer_correct('You live in Manchester now.', 'Manchester', stale='Leeds') -> True;
    answer_correct('You moved from Leeds to Manchester.', 'Manchester', stale='Leeds') -> False;
    answer_correct("You haven't told me your vet's name.", None, abstain=True) -> True."""
    def any_of(options: str) -> bool:
        return any(answer_contains(prediction, option) for option in options.split("|") if option.strip())

    correct = any_of(expected) if expected else True
    if stale:
        correct = correct and not any_of(stale)
    if abstain:
        correct = correct and abstained(prediction)
    return correct


def locomo_f1(prediction: str, gold: str, category: int) -> float:
    """LoCoMo's per-category F1. Example: category 1, gold 'a, b' and prediction 'a' -> mean(1.0, 0.0) = 0.5."""
    gold = str(gold)
    if category == 3:
        gold = gold.split(";")[0]
    if category == 1:
        golds = [g for g in gold.split(",") if g.strip()]
        preds = [p for p in str(prediction).split(",") if p.strip()] or [str(prediction)]
        return sum(max(token_f1(p, g) for p in preds) for g in golds) / len(golds) if golds else 0.0
    return token_f1(prediction, gold)


def abstained(prediction: str) -> bool:
    """Example: abstained("That was never mentioned.") -> True; abstained("I don’t know.") -> True; 'Paris' -> False;
    abstained("No idea - I only know about …") -> True (set W); "Not enough information to answer this question." -> True (set
    AO, held out: the 0.5B model's abstention, beside a line that answered)."""
    return bool(_ABSTAIN.search(str(prediction).replace("’", "'")))


def recall_at_k(retrieved: list[str | None], evidence: list[str], k: int) -> float:
    """Share of evidence ids among the first k retrieved. Example: (['a', 'x', 'b'], ['a', 'b'], 2) -> 0.5."""
    if not evidence:
        return 0.0
    top = set(retrieved[:k])
    return sum(1 for e in set(evidence) if e in top) / len(set(evidence))
