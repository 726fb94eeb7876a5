"""PII scrubbing (seed 001's Herald): names, locations, ages, phone numbers, emails, financial data.

`scrub(text, categories, known_terms)` removes personal information before text leaves the user's
scope: research queries sent to a search provider, memories promoted to global knowledge. LLMs keep
seeing the original. Two passes:
1. first-person sentences or clauses that reveal a category ("I'm 45 and live in Seattle", "my name
   is Ana", "I was born in 1980") are dropped whole — the question around them stays;
2. what is left is searched for emails, phone numbers, card/IBAN/SSN/account numbers, personal
   amounts ("my salary is $85,000") and the caller's `known_terms` (the user's id, name, city, ...),
   which are replaced by a neutral placeholder or removed.
Deterministic patterns, not a model: the categories are configurable in the policy (privacy block).
Example: scrub("How do I manage type 2 diabetes? I'm 45 and live in Seattle") ->
"How do I manage type 2 diabetes?"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CATEGORIES = ("names", "locations", "ages", "phones", "emails", "financial")

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<![\w$])(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}[\s.-]\d{3,4}(?:[\s.-]\d{2,4})?(?![\w%])")
_PHONE_INTL = re.compile(r"(?<![\w$])\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,6}(?![\w%])")
_CARD = re.compile(r"\b(?:\d[ -]?){13,19}\b")
_SSN = re.compile(r"\b\d{3}-\d{2}-\d{4}\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b")
_ACCOUNT = re.compile(r"\b(?:account|acct|routing|sort code)(?: number| no\.?| #)?:? ?[\d -]{4,}\d\b", re.I)
_MONEY_PERSONAL = re.compile(
    r"\b(?:my|our) (?:salary|income|savings|debt|loan|mortgage|balance|net worth|rent|pension)"
    r"(?: is| of| are)? (?:about |around |roughly |nearly )?[$€£]?\s?[\d,.]*\d(?:k|K| ?(?:dollars|euros|pounds))?",
    re.I,
)
_MARK = "\x00"
_LEAD_IN = re.compile(r"(?:\b(?:e-?mail|call|text|phone|contact|reach|write to)(?: me| us)?(?: at| on| via)?\s*"
                      r"|\b(?:(?:my|our) )?(?:credit card|debit card|card|account|iban|ssn|social security number)"
                      r"(?: number| no\.?)?(?: is)?\s*)?\x00", re.I)
_FIRST_PERSON = r"(?:\bI(?:'m| am| was|'ve| have)?|\b[Ww]e(?:'re| are)?|\b[Mm]y|\b[Oo]ur)\b"
_CLAUSES: dict[str, re.Pattern[str]] = {
    "ages": re.compile(r"\b(?:I(?:'m| am)|[Mm]y (?:age|son|daughter|kid|wife|husband) is) \d{1,3}\b"
                       r"|\b\d{1,3}[- ]years?[- ]old\b|\bI was born (?:in|on) [\w ,]+|\b[Aa]ged? \d{1,3}\b"),
    "locations": re.compile(r"\b(?:I|[Ww]e)(?: now| currently| still| just| recently)? (?:live|reside|am based|are based|"
                            r"moved|grew up|am from|are from|come from|stay)\b(?: in| to| at| near| from)?"
                            r"|^\s*(?:now |currently )?(?:live|reside|moved|grew up|am from|come from)\b"
                            r"|\b[Mm]y (?:address|home town|hometown|city|zip(?: code)?|postcode) is\b"
                            r"|\b\d{1,5} [A-Z][a-z]+ (?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Drive|Dr)\b"),
    "names": re.compile(r"\b[Mm]y name is\b|\bI(?:'m| am) [A-Z][a-z]+\b(?! (?:and|or|to|in|at|the|a|an)\b)|"
                        r"\b(?:[Cc]all me|[Tt]his is) [A-Z][a-z]+\b"),
}
_SENTENCE = re.compile(r"(?:[^.?!;\n]|\.(?=\w))+[.?!;]?")
_JOIN = re.compile(r",\s+|\s+and\s+|\s+but\s+")
_JOINERS = re.compile(r"^\s*(?:and|but|so|also|,)\s+", re.I)


@dataclass(frozen=True)
class ScrubResult:
    text: str
    removed: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.removed)


def _split_clauses(sentence: str) -> list[str]:
    """Split a sentence at ' and ' / ', ' joins, so a PII clause can go without its neighbours."""
    return [p for p in re.split(r"(,\s+|\s+and\s+|\s+but\s+)", sentence) if p]


def scrub(text: str, categories: tuple[str, ...] | list[str] = CATEGORIES,
          known_terms: list[str] | tuple[str, ...] = ()) -> ScrubResult:
    enabled = set(categories)
    removed: dict[str, int] = {}

    def hit(category: str, n: int = 1) -> None:
        removed[category] = removed.get(category, 0) + n

    out = text
    patterns = []
    if "emails" in enabled:
        patterns.append(("emails", _EMAIL))
    if "financial" in enabled:
        patterns += [("financial", _MONEY_PERSONAL), ("financial", _IBAN), ("financial", _SSN),
                     ("financial", _ACCOUNT), ("financial", _CARD)]
    if "phones" in enabled:
        patterns += [("phones", _PHONE_INTL), ("phones", _PHONE)]
    for category, pattern in patterns:
        out, n = pattern.subn(_MARK, out)
        if n:
            hit(category, n)
    out = _LEAD_IN.sub("", out).replace(_MARK, "")
    out = re.sub(r"\s+(?:or|and)\s*(?=[.?!,;]|$)", "", out)

    kept_sentences = []
    for sentence in _SENTENCE.findall(out):
        kept: list[str] = []
        dropped_last = False
        for piece in _split_clauses(sentence):
            if _JOIN.fullmatch(piece):
                kept.append(piece)
                continue
            flagged = next((c for c in ("ages", "locations", "names") if c in enabled and _CLAUSES[c].search(piece)), None)
            personal = bool(re.search(_FIRST_PERSON, piece)) or dropped_last or flagged == "ages"
            if flagged and personal:
                hit(flagged)
                if kept and _JOIN.fullmatch(kept[-1]):
                    kept.pop()
                dropped_last = True
                continue
            dropped_last = False
            kept.append(piece)
        while kept and _JOIN.fullmatch(kept[0]):
            kept.pop(0)
        while kept and _JOIN.fullmatch(kept[-1]):
            kept.pop()
        joined = _JOINERS.sub("", "".join(kept)).strip()
        if joined and not re.fullmatch(r"[.?!;,\s]*", joined):
            if sentence.rstrip()[-1:] in ".?!" and joined[-1:] not in ".?!":
                joined += sentence.rstrip()[-1]
            kept_sentences.append(joined)
    out = " ".join(kept_sentences)
    for term in sorted({t.strip() for t in known_terms if t and len(t.strip()) >= 2}, key=len, reverse=True):
        pattern = re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.I)
        out, n = pattern.subn("", out)
        if n:
            hit("known_terms", n)
    out = re.sub(r"\s+([,.?!;])", r"\1", re.sub(r"\s{2,}", " ", out)).strip(" ,;")
    return ScrubResult(out, removed)
