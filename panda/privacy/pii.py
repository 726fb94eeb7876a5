# ruff: noqa: E501  (the pattern table reads best one pattern a line)
"""PII scrubbing (seed 001's Herald): personal details become placeholders before text leaves the user.

`scrub(text, categories, known_terms)` finds spans of personal information and replaces each with a
placeholder — "[NAME]", "[LOCATION]", "[AGE]", "[PHONE]", "[EMAIL]", "[FINANCIAL]", "[EMPLOYER]",
"[DOB]", "[ADDRESS]", "[HEALTH_ID]", "[PRIVATE]" — so the rest of the sentence survives and a scrubbed
research query still searches. Used wherever text leaves the user's scope: research queries sent to a
search provider, knowledge notes (global), memories promoted to global. LLMs keep seeing the original.

Deterministic patterns, not a model. Names, places and employers are found by the personal context
that introduces them ("my wife Maria", "I live in Denver", "I work at Acme Corp in Austin", "call me
Ben"), never by capitalisation alone — so "Best hikes near Denver" and "I love the film Denver" keep
Denver. Identifiers (emails, phones, card/IBAN/SSN/account numbers, health record numbers) are found
by their shape and lead-in (IBANs and cards only when their check digits hold; a number named a code is
not a phone); dates of birth by "born on/in", "date of birth", "DOB", "birthday". A
place right after a found address or employer ("14 Elm Road, Leeds", "Acme Corp in Austin") is a
location too. `known_terms` (the user's id and their name/city/employer facts) are always replaced.
The categories are configurable in the policy (privacy.pii_categories). Measured on a labelled set of
316 sentences in tests/privacy/ (precision and recall per category printed by the test).

Example: scrub("How do I manage type 2 diabetes? I'm 45 and live in Seattle").text ->
"How do I manage type 2 diabetes? I'm [AGE] and live in [LOCATION]"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CATEGORIES = ("names", "locations", "ages", "phones", "emails", "financial", "employers", "dates_of_birth",
              "addresses", "health", "ids")
PLACEHOLDERS = {"names": "[NAME]", "locations": "[LOCATION]", "ages": "[AGE]", "phones": "[PHONE]",
                "emails": "[EMAIL]", "financial": "[FINANCIAL]", "employers": "[EMPLOYER]",
                "dates_of_birth": "[DOB]", "addresses": "[ADDRESS]", "health": "[HEALTH_ID]", "ids": "[ID]",
                "known_terms": "[PRIVATE]"}
PLACEHOLDER = re.compile(r"\[(?:NAME|LOCATION|AGE|PHONE|EMAIL|FINANCIAL|EMPLOYER|DOB|ADDRESS|HEALTH_ID|ID|PRIVATE)\]")

_CAP = r"[A-ZÀ-ÞĀ-Ž][\w'’\-]*"
_NAME = rf"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?({_CAP}(?:\s+{_CAP})?)"
_PLACE = rf"({_CAP}(?:\s+{_CAP}){{0,2}}(?:,\s*{_CAP}(?:\s+{_CAP})?)?)"
_ORG = rf"(?:the\s+(?:(?:city|town|county|state|university|department)\s+of\s+)?)?({_CAP}(?:\s+(?:{_CAP}|(?:&|of|and)(?=\s+{_CAP})))*)"
_RELATION = (r"(?:wife|husband|son|daughter|mom|mum|mother|dad|father|stepdad|stepmom|stepmother|stepfather|sister|"
             r"brother|partner|boyfriend|girlfriend|fianc[ée]e?|friend|boss|manager|colleague|coworker|co-worker|"
             r"grandmother|grandma|granny|grandfather|grandpa|aunt|uncle|cousin|niece|nephew|kid|child|baby|"
             r"roommate|flatmate|neighbou?r|assistant|doctor|dentist|therapist|teacher|tutor|twin|spouse|ex)")
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?")
_DATE = (rf"({_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}"
         rf"|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}|{_MONTH}\s+\d{{4}}|(?:19|20)\d{{2}})")
_STREET = (r"(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Drive|Dr|Terrace|Court|Ct|Way|Place|Pl|Close|"
           r"Crescent|Square|Sq|Grove|Gardens|Row|Hill|Park|Walk|Mews|Parade|Rise|View)")
# a UK postcode (LS6 2AB) and a unit before a street number (Flat 3, Apt 4B)
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}"
_UNIT = r"(?:(?:Flat|Apt\.?|Apartment|Unit|Suite)\s+\w+,?\s+)?"
_NOT_AGE = r"(?!\s*(?:months?|weeks?|days?|hours?|minutes?|%|percent|inch|cm|kg|lbs?|GB|TB|degrees|mpg|seats|people)\b)"
_NOT_NAMES = {"Italian", "Irish", "English", "British", "American", "Canadian", "French", "German", "Spanish",
              "Mexican", "Chinese", "Japanese", "Korean", "Indian", "Russian", "Polish", "Dutch", "Swedish", "Danish",
              "Norwegian", "Greek", "Turkish", "Brazilian", "Australian", "Scottish", "Welsh", "Jewish", "Muslim",
              "Catholic", "Christian", "Vegan", "Vegetarian", "Happy", "Sorry", "Not", "Just", "So", "Very",
              "Really", "Also", "Still", "Here", "Back", "Done", "Fine", "Okay", "OK", "Ready", "Sure", "Glad",
              "Currently", "Now", "Always", "The", "A", "An", "In", "At", "On", "From", "With"}

# (category, pattern, group holding the personal value). Earlier entries win where spans overlap.
_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    ("dates_of_birth", re.compile(rf"\b(?:[Bb]orn\s+(?:on|in)\s+|(?i:date of birth|DOB|birthday)\s*(?:is|was|:)?\s*){_DATE}"), 1),
    ("dates_of_birth", re.compile(rf"\b[Bb]orn\s+in\s+{_CAP}(?:[\s,]+{_CAP}){{0,2}}\s+(?:in|on)\s+{_DATE}"), 1),
    ("emails", re.compile(r"([\w.+-]+(?:'[\w.+-]+)?@[\w-]+(?:\.[\w-]+)+)"), 1),
    # "li.wei (at) example.cn", "anna[dot]berg[at]mail[dot]com", "ana at mail dot com"
    ("emails", re.compile(r"(?i:([\w+-]+(?:(?:\.|\s?[\[({]dot[\])}]\s?)[\w+-]+)*\s?(?:[\[({]at[\])}]|\sat\s(?=[\w-]+\sdot\s))\s?[\w-]+(?:(?:\.|\s?[\[({]dot[\])}]\s?|\sdot\s)[a-z]{2,})+))"), 1),
    # a Japanese postcode (〒123-4567) with what follows on the line
    ("addresses", re.compile(rf"(〒\s?\d{{3}}-\d{{4}}(?:(?:\s?[^\s\x00-\x7F]+|,?\s{_CAP}(?:-[a-z]+)?|,?\s?\d{{1,4}}(?:-\d{{1,4}}){{1,2}}))*)"), 1),
    ("health", re.compile(r"(?i:medical record(?: number)?|MRN|patient (?:id|number)|(?<!national )(?:health )?insurance (?:member )?"
                          r"(?:id|number|policy number)|(?<!national )(?<!national)member id|policy number|NHS number|health card(?: number)?)"
                          r"\s*(?:is|:|#|no\.?)?\s*(?:MRN\s*)?([A-Z0-9](?:[A-Z0-9]|[ -](?=[A-Z0-9])){4,})"), 1),
    ("financial", re.compile(r"(?i:\b(?:my|our)\s+(?:\w+\s+)?(?:salary|income|savings|debt|loan|mortgage|balance|"
                             r"net worth|rent|pension)(?:\s+balance)?\s+(?:is|are|of|was)?\s*(?:about|around|roughly|nearly|"
                             r"over|under)?\s*)([$€£]?\s?\d[\d,.]*\d?(?:\s?(?:k|K|dollars|euros|pounds))?)"), 1),

    ("ids", re.compile(r"\b(\d{3}-\d{2}-\d{4})\b"), 1),  # a US social security number
    ("financial", re.compile(r"(?i:\b(?:account|acct|routing|sort code)(?: number| no\.?| #)?(?: is)?:?\s?)"
                             r"((?:[A-Z]{2})?\d[\dA-Z -]{3,}\d)\b"), 1),

    # identity documents and numbers: what follows the words that name them
    ("ids", re.compile(r"(?i:\b(?:passport|national id(?:entity)?(?: card)?|id card|identity card|personnummer|"
                       r"f(?:ø|o)dselsnummer|personalausweis|social insurance|driver'?s licen[cs]e|driving licen[cs]e|"
                       r"(?:car |licen[cs]e |number |reg(?:istration)? )?plate|tax id|NIE|NIF|DNI|SIN|SSN|BSN|CPR|PESEL|TFN|NINO|"
                       r"social security|national insurance|citizen service|codice fiscale|steuer-?id|Aadhaar|PPS)"
                       r"(?:\s+(?:number|no\.?|#))?(?:\s+(?:is|was|:))?:?\s*)([A-Z0-9](?:[A-Z0-9]|[ -](?=[A-Z0-9])){4,16})"), 1),
    ("phones", re.compile(r"(?<![\w$])(\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,6})(?![\w%])"), 1),
    ("phones", re.compile(r"(?<![\w$.])(?<!\d[\s-])((?:\+?\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}[\s.-]\d{3,4}"
                          r"(?:[\s.-]\d{2,4})?)(?![\w%:/]|[\s.-]\d)"), 1),
    ("phones", re.compile(r"\b(0\d{4}\s?\d{6})\b"), 1),
    ("addresses", re.compile(rf"\b({_UNIT}\d{{1,5}}[A-Za-z]?\s+(?:{_CAP}\s+){{1,3}}{_STREET}\b\.?"
                             rf"(?:,\s*{_CAP}(?:\s+{_CAP})?\s+{_UK_POSTCODE}\b)?"
                             rf"|\d{{1,5}},?\s+(?:Rue|Calle|Via|Avenida|Rua)\s+(?:(?:de|del|la|des|du)\s+)?{_CAP}(?:\s+{_CAP})?)"), 1),
    ("addresses", re.compile(rf"\b(?:live|lives|living|stay|staying)\s+(?:on|at)\s+((?:{_CAP}\s+){{1,3}}{_STREET}\b)"), 1),
    # Nordic and German street names (one word ending in a street suffix), a number, then the postcode and town
    ("addresses", re.compile(r"\b([A-ZÆØÅÄÖÜ][a-zæøåäöüß-]*(?:gata|gaten|gate|veien|vegen|vei|vej|gatan|vägen|straße|"
                             r"strasse|str\.|weg|allee|platz|gasse|ring|damm)\s+\d{1,4}\s?[A-Za-z]?"
                             r"(?:,?\s+\d{4,5}(?:\s+[A-ZÆØÅÄÖÜ][\wæøåäöüß-]+)?)?)"), 1),

    ("names", re.compile(rf"\b[Mm]y (?:full )?name is {_NAME}"), 1),
    ("names", re.compile(rf"\b(?:[Cc]all me|[Tt]his is|I(?:'m| am)) {_NAME}"), 1),
    ("names", re.compile(rf"\b(?:[Mm]y|[Oo]ur)\s+(?:\w+\s+)?{_RELATION}s?\s*,?\s+(?:(?:named|called|is)\s+)?{_NAME}"), 1),
    ("employers", re.compile(rf"\b(?:I(?:'m| am)|[Ss]he(?:'s| is)|[Hh]e(?:'s| is)|is|was)\s+an?\s+(?!student\b)[a-z-]+\s+(?:at|for)\s+{_ORG}"), 1),
    ("employers", re.compile(rf"\b(?:work|works|worked|working|teach|teaches|taught|teaching|intern|interned)\s+(?:as\s+an?\s+[\w-]+(?:\s+[\w-]+)?\s+)?(?:at|for)\s+{_ORG}"), 1),
    ("employers", re.compile(rf"\b(?:employed|hired)\s+(?:by|at)\s+{_ORG}|\bretired\s+from\s+{_ORG}"
                             rf"|\b[Mm]y\s+(?:employer|company|firm)(?:\s+is|,)\s+{_ORG}"), 0),
    ("ages", re.compile(rf"\bI(?:'m| am)\s+(?:an?\s+)?(\d{{1,3}})\b{_NOT_AGE}(?![-\s]years?[-\s]old\s+\w+s\b)"), 1),
    ("ages", re.compile(r"\b(\d{1,3})[- ]years?[- ]old\b"), 1),
    ("ages", re.compile(r"\b(?i:aged?)\s+(\d{1,3})\b"), 1),
    ("ages", re.compile(rf"\b(?:[Mm]y|[Oo]ur)\s+(?:\w+\s+)?{_RELATION}s?(?:\s+{_NAME})?\s+(?:is|turned|turns|just turned|"
                        rf"will be)\s+(\d{{1,3}})\b{_NOT_AGE}"), 2),
    ("ages", re.compile(rf"\bI(?:'m| am)\s+{_CAP},\s+(\d{{1,3}})\b"), 1),
    ("ages", re.compile(rf"\b(?:[Mm]y|[Oo]ur)\s+(?:\w+\s+)?{_RELATION}\s+{_NAME},\s+(\d{{1,3}}),"), 2),
    ("ages", re.compile(rf"\b{_RELATION}\s+{_CAP}\s+(?:is|turned|turns)\s+(\d{{1,3}})\b{_NOT_AGE}"), 1),
    ("locations", re.compile(rf"\b(?:live|lives|living|reside|resides|residing|moved|relocated|based|grew up|am from|are from|"
                             rf"'m from|come from|comes from|originally from|born)\s+(?:(?:now|currently|here)\s+)?(?:in|to|at|near|from)\s+"
                             rf"(?:the\s+)?{_PLACE}"), 1),
    ("locations", re.compile(rf"\b(?:I(?:'m| am)|we(?:'re| are))\s+(?:{_CAP}(?:,\s*\d{{1,3}},)?\s+)?from\s+{_PLACE}"
                             rf"|\b\d{{1,3}}[- ]years?[- ]old\s+(?:[a-z]+\s+){{1,2}}(?:in|from)\s+{_PLACE}|\b[Mm]y\s+(?:home ?town|city|town|"
                             rf"village|zip(?: code)?|postcode)\s+is\s+{_PLACE}"), 0),
]
# Identifiers with a check digit, validated before they count: an IBAN (any country, letters first, spaced or not:
# ISO 13616 mod 97) and a card number (13-19 digits, Luhn). What fails its check (an ISBN, a product code, a
# tracking number) is not personal data and stays.
_IBAN = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30})\b")
_CARD = re.compile(r"(?<![\d-])((?:\d[ -]?){12,18}\d)(?![\d-])")


def iban_valid(candidate: str) -> bool:
    """ISO 13616: 15-34 characters whose rearranged number is 1 mod 97. Example: 'GB82 WEST 1234 5698 7654 32' ->
    True; 'GB82 WEST 1234 5698 7654 33' -> False."""
    code = candidate.replace(" ", "")
    if not 15 <= len(code) <= 34 or not code[:2].isalpha() or not code[2:4].isdigit():
        return False
    digits = "".join(str(int(c, 36)) for c in code[4:] + code[:4])
    return int(digits) % 97 == 1


def luhn_valid(candidate: str) -> bool:
    """Example: '4111 1111 1111 1111' -> True; '978-3-16-148410-0' (an ISBN) -> False."""
    digits = [int(c) for c in candidate if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for i, d in enumerate(reversed(digits)))
    return total % 10 == 0


def _checked(text: str) -> list[tuple[int, int]]:
    """Spans of IBANs and card numbers that pass their check; an IBAN run on into the next word is cut back."""
    out = []
    for match in _IBAN.finditer(text):
        value = match.group(1)
        while value and not iban_valid(value):
            value = value[: value.rfind(" ")] if " " in value[4:] else ""
        if value:
            out.append((match.start(1), match.start(1) + len(value)))
    out += [m.span(1) for m in _CARD.finditer(text) if luhn_valid(m.group(1))]
    return out


# Words that say a number is a code, not a phone: "order number 4521-8876-1190", "part 04-2213-7781"
_CODE_BEFORE = re.compile(r"(?i:\b(?:part|model|serial|order|item|product|sku|ref(?:erence)?|invoice|tracking|isbn|"
                          r"doi|version|ticket|error|code|flight|train|route|case|batch|lot)\b(?:\s+(?:number|no\.?|#))?"
                          r"\s*(?:is|was|:)?\s*)$")


def _phone_like(text: str, start: int, value: str) -> bool:
    """A phone number has at least 7 digits and is not named a code by the words just before it."""
    return sum(c.isdigit() for c in value) >= 7 and not _CODE_BEFORE.search(text[max(0, start - 30):start])


_AFTER_PLACE = re.compile(rf"^(?:,\s*|\s+in\s+){_PLACE}")


@dataclass(frozen=True)
class ScrubResult:
    text: str
    removed: dict[str, int] = field(default_factory=dict)
    spans: tuple[tuple[str, str], ...] = ()  # (category, original text) of what was replaced

    @property
    def changed(self) -> bool:
        return bool(self.removed)


def _group(match: re.Match[str], index: int) -> tuple[int, int] | None:
    if index:
        return match.span(index) if match.group(index) else None
    for i in range(1, (match.re.groups or 0) + 1):  # alternatives: the first group that matched
        if match.group(i):
            return match.span(i)
    return None


def find_spans(text: str, categories: tuple[str, ...] | list[str] = CATEGORIES) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, category) spans of personal information, in text order (pure).

    Example: find_spans("My son Tom is 12") -> [(7, 10, 'names'), (14, 16, 'ages')].
    """
    enabled = set(categories)
    spans: list[tuple[int, int, str]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _ in spans)

    if "financial" in enabled:  # first: a validated identifier is not cut up by the phone patterns
        for start, end in sorted(_checked(text)):
            if free(start, end):
                spans.append((start, end, "financial"))

    for category, pattern, index in _PATTERNS:
        if category not in enabled:
            continue
        for match in pattern.finditer(text):
            where = _group(match, index)
            if where is None:
                continue
            start, end = where
            value = text[start:end].rstrip(" ,.")
            end = start + len(value)
            if category == "names":
                if value.split()[0] in _NOT_NAMES:
                    continue
                value = re.sub(r"['’]s$", "", value)
                end = start + len(value)
            if category == "phones" and not _phone_like(text, start, value):
                continue
            if end > start and free(start, end):
                spans.append((start, end, category))
    if "locations" in enabled:  # "14 Elm Road, Leeds", "Acme Corp in Austin": the place after it
        for _start, end, category in list(spans):
            if category in ("addresses", "employers"):
                place = _AFTER_PLACE.match(text[end:])
                if place:
                    s, e = end + place.start(1), end + place.end(1)
                    if free(s, e):
                        spans.append((s, e, "locations"))
    return sorted(spans)


def scrub(text: str, categories: tuple[str, ...] | list[str] = CATEGORIES,
          known_terms: list[str] | tuple[str, ...] = ()) -> ScrubResult:
    removed: dict[str, int] = {}
    found: list[tuple[str, str]] = []
    out = text
    for start, end, category in reversed(find_spans(text, categories)):
        found.append((category, text[start:end]))
        removed[category] = removed.get(category, 0) + 1
        out = out[:start] + PLACEHOLDERS[category] + out[end:]
    for term in sorted({t.strip() for t in known_terms if t and len(t.strip()) >= 2}, key=len, reverse=True):
        pattern = re.compile(rf"(?<![\w\[]){re.escape(term)}(?![\w\]])", re.I)
        for match in pattern.finditer(out):
            found.append(("known_terms", match.group(0)))
        out, n = pattern.subn(PLACEHOLDERS["known_terms"], out)
        if n:
            removed["known_terms"] = removed.get("known_terms", 0) + n
    return ScrubResult(out, removed, tuple(reversed(found)))


def without_placeholders(text: str) -> str:
    """The scrubbed text with its placeholders dropped (what a keyword search should look for).

    Example: without_placeholders('Best hikes near [ADDRESS] for a [AGE] year old') -> 'Best hikes near for a year old'.
    """
    return " ".join(PLACEHOLDER.sub(" ", text).split())
