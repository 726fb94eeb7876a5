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
    stem('move') -> 'mov'; stem('moving') -> 'mov'; stem('glass') -> 'glass'; stem('running') -> 'run' (a doubled
    last consonant, _UNDOUBLED, undoubled: set AH, held out, "I run 10 kilometres" met no "switched from running").
    """
    if "'" in word:
        word = word.split("'", 1)[0]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return _undoubled(word[:-3])
    if len(word) > 4 and word.endswith("ed"):
        return _undoubled(word[:-2]) if not word.endswith("eed") else word[:-1]
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    if len(word) > 3 and word.endswith("e") and not word.endswith("ee"):
        return word[:-1]
    return word


# Consonants doubled before -ing/-ed (running, stopped, planned); not d, l, s, z, f, which words end in doubled ("added",
# "called", "missed", "buzzed", "staffed")
_UNDOUBLED = frozenset("bgkmnprt")


def _undoubled(word: str) -> str:
    return word[:-1] if len(word) > 2 and word[-1] == word[-2] and word[-1] in _UNDOUBLED else word


def tokenize(text: str) -> list[str]:
    """Lower-case word stems without stop words. Example: tokenize('The Laptops I liked') -> ['laptop', 'lik']."""
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS and len(t) > 1]


def term_frequencies(text: str) -> Counter[str]:
    return Counter(tokenize(text))


def words(text: str) -> list[str]:
    """Plain lower-case words (no stemming), used for fuzzy name matching."""
    return _TOKEN.findall(text.lower())


_WRITTEN = re.compile(r"[\w'’-]+")


def written_words(text: str) -> list[str]:
    """The words as written, case, apostrophes and hyphens kept. Example: written_words("Anna's e-bike.") ->
    ["Anna's", 'e-bike']."""
    return _WRITTEN.findall(text)


# a request asks as a question does (set U: "Recommend a dish I could cook for my crew." stood in the next turns'
# contexts as something the user said, and the 1.5B model answered it there again)
_QUESTION = re.compile(r"^\s*(?:who|whom|whose|what|where|which|when|why|how|does|do|did|is|are|was|were|has|have|"
                       r"had|can|could|should|would|will|tell me|remind me|recommend|suggest|give me|find me|help me|"
                       r"explain)\b|\?\s*$", re.I)


def is_question(text: str) -> bool:
    """Example: is_question('Where does Dana live') -> True; is_question('I live in Boston.') -> False;
    is_question('ferret Noodle') -> False; is_question('Suggest a hike?') -> True; is_question('Recommend a dish I could
    cook.') -> True (a request)."""
    return bool(_QUESTION.search(text))


def asked_part(text: str) -> str:
    """The sentences of a message that ask, where it marks them with "?" (pure): what a statement before a question
    names is not what the question asks. Example: asked_part('I just adopted a hamster named Biscuit. What should I
    feed her?') -> 'What should I feed her?'; asked_part('Where does Dana live') -> 'Where does Dana live'."""
    asked = [sentence.strip() for sentence in re.findall(r"[^.!?]*\?", text)]
    return " ".join(asked) if asked else text


_ADVICE = re.compile(r"\b(?:should|could|can you|could you|would you|will you|recommend|suggest|ideas?|tips?|advice|"
                     r"help me|how (?:can|should|could|might) I|what's a good|any good)\b", re.I)


def asks_for_advice(text: str) -> bool:
    """Whether a message asks for a suggestion or advice rather than for what is so. Example:
    asks_for_advice('What could I eat after a run?') -> True; asks_for_advice('Which city do I live in now?') -> False;
    asks_for_advice('How do I get to the office these days?') -> False."""
    return bool(_ADVICE.search(text))


_IDEAS = re.compile(r"\b(?:recommend|suggest|suggestions?|ideas?|tips?|advice|what['’]s a good|any good)\b|"
                    r"\bwhat (?:should|could|can|might) (?:I|we) (?:cook|eat|make|drink|read|watch|buy|get|bring|wear|"
                    r"play|listen to|do)\b", re.I)


def asks_for_ideas(text: str) -> bool:
    """Whether a message asks for ideas or a recommendation, which what the user likes and must keep to should shape
    (pure; narrower than asks_for_advice: "Can you remind me where I work?" asks for what is so). Example:
    asks_for_ideas('Can you recommend a warm drink for the evening?') -> True; ('Can you remind me where I work?') ->
    False; ('What could I cook tonight?') -> True."""
    return bool(_IDEAS.search(text))


_REQUEST = re.compile(r"^\s*(?:please\b|(?:suggest|recommend|give|tell|find|show|list|help|write|make|plan|book|remind|"
                      r"explain|compare|describe|summari[sz]e|search|look|check|send|create|draft|translate|calculate|"
                      r"let me|pick|choose|name)\b)|\bI(?:'d| would)? (?:need|want|like|love) (?:a|an|some|to know|help|"
                      r"ideas|you)\b|\bI(?:'m| am) (?:looking for|wondering|not sure)\b|\bI wonder\b|\bplease\b|"
                      r"\bI (?:don't|do not|can't|cannot) (?:know|decide|choose|figure out|remember)\b", re.I)


def asks_for_a_suggestion(text: str) -> bool:
    """Whether a message asks for advice or for something to be done or found, not for what is so. Example:
    asks_for_a_suggestion('Suggest something I could cook.') -> True; ('What am I allergic to?') -> False."""
    return asks_for_advice(text) or bool(_REQUEST.search(text))


def asks_something(text: str) -> bool:
    """Whether a message asks anything: a question, a request for advice or a request to do something ("Suggest a
    dinner.", "I need a recipe for tonight."). Example: asks_something('I teach physics now.') -> False."""
    return is_question(text) or asks_for_a_suggestion(text)


_SECOND_PERSON = {"i": "you", "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll", "me": "you",
                  "my": "your", "mine": "yours", "myself": "yourself", "we": "you", "we're": "you're",
                  "we've": "you've", "we'd": "you'd", "we'll": "you'll", "us": "you", "our": "your", "ours": "yours",
                  "ourselves": "yourselves", "am": "are"}
# The speaker's own words, capitalised only at a sentence's start: "US" (the country) and "ME" are not "us" and "me".
_PERSON_WORD = re.compile(r"(?<![\w'’])(?:I|I'm|I've|I'd|I'll|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|[Ww]e're|[Ww]e've|"
                          r"[Ww]e'd|[Ww]e'll|[Uu]s|[Oo]ur|[Oo]urs|[Oo]urselves|(?<=I )am|(?<=I )was|(?<=I )wasn't)(?![\w'’])")


def first_person(text: str) -> bool:
    """Whether the speaker speaks of themselves. Example: first_person('My partner Sven is a nurse.') -> True;
    first_person('Rust is fast.') -> False."""
    return bool(_PERSON_WORD.search(text.replace("’", "'")))


def second_person(text: str) -> str:
    """What a speaker said of themselves, said back to them. Example: second_person("I'm allergic to shellfish and
    my partner is a nurse.") -> "you're allergic to shellfish and your partner is a nurse."; "I was" -> "you were",
    "I wasn't" -> "you weren't";
    other words keep their case ("Joe moved out." is unchanged, and so is "the US")."""
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = word.lower()
        return {"was": "were", "wasn't": "weren't"}.get(lower) or _SECOND_PERSON[lower]

    return _PERSON_WORD.sub(swap, text.replace("’", "'").strip())


_NUMBER_WORDS = {word: n for n, word in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                                  "thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
                                                  "twenty".split())}
_NUMBER_WORDS.update({"no": 0, "none": 0, "once": 1, "twice": 2, "dozen": 12, "thirty": 30, "forty": 40, "fifty": 50,
                      "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
                      "twins": 2, "triplets": 3})  # set AV, held out: "How many babies did Thembeka have?" beside "… had twins"


def amounts(text: str) -> set[str]:
    """The numbers a text gives, in figures. Example: amounts('Three hives, £1,200 and 2 am') -> {'3', '1200', '2'}."""
    found = {m.replace(",", "") for m in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}
    return found | {str(_NUMBER_WORDS[w]) for w in re.findall(r"[a-z]+", text.lower()) if w in _NUMBER_WORDS}


# A name, in any alphabet: a capital then small letters ("Rocío", "Łukasz", "José"); [A-Z][a-z]+ cut "Rocío" to "Roc"
# (set AV, held out). Python's re has no case classes, so a letter that is no ASCII small letter, then letters that are
# no ASCII capitals. Not for a pattern compiled with re.I, where the classes lose their ASCII letters both ways.
NAME_START = r"[^\W\d_a-z][^\W\d_A-Z]"
NAME = NAME_START + "+"


# The past of common irregular verbs, so "When did I get my puppy?" meets "I just got a puppy".
IRREGULAR = {"got": "get", "gotten": "get", "bought": "buy", "went": "go", "gone": "go", "met": "meet", "took": "take",
             "taken": "take", "made": "make", "began": "begin", "begun": "begin", "ran": "run", "left": "leave",
             "sold": "sell", "told": "tell", "saw": "see", "seen": "see", "came": "come", "gave": "give",
             "given": "give", "found": "find", "won": "win", "lost": "lose", "paid": "pay", "wrote": "write",
             "written": "write", "drove": "drive", "driven": "drive", "flew": "fly", "broke": "break",
             "broken": "break", "fell": "fall", "hurt": "hurt", "threw": "throw", "caught": "catch",
             "ate": "eat", "swam": "swim", "sang": "sing", "rode": "ride"}  # a past and the word it is of


def word_stems(text: str) -> set[str]:
    """tokenize's stems, an irregular past as its present's. Example: word_stems('I just got a puppy') -> {'get',
    'puppy'}."""
    return {stem(IRREGULAR[t]) if t in IRREGULAR else t for t in tokenize(text)}


# Words that deny: an answer saying one says something is not so (pipeline/answer_lines, answer_changes)
DENIES = re.compile(r"\b(?:no|not|never|none|nothing|unknown|no longer|any ?more)\b|n['’]t\b", re.I)
