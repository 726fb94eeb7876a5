"""Neutral words for shared notes: what a research turn was about, never the sentence its user wrote (pure).

A global note (Knowledge/, Context/, Logs/Changes/) is read by every user. Its title, subtopic, headings and
change-log lines come from the topic and from what the research found; only a public lesson (Context/Turns/) states
the task, and it does so in neutral words: the impersonal question sentences of the scrubbed query (no placeholder,
no first or second person, no digits), else the topic's words. A task that still holds anything the
scrubber marks is refused: the lesson is not published (issue 44).
"""

from __future__ import annotations

import re

from panda.privacy.pii import CATEGORIES, scrub

_PLACEHOLDER = re.compile(r"\[[A-Z_]+\]")
_PERSONAL = re.compile(r"\b(i|i'm|i've|i'd|i'll|me|my|mine|myself|we|our|us|you|your|yours)\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
TASK_CHARS = 100


def topic_words(topic: str) -> str:
    """Example: 'laptops.video_editing' -> 'laptops video editing'."""
    return " ".join(re.split(r"[._\s-]+", topic or "general")).strip() or "general"


def neutral_task(query: str, topic: str, categories: tuple[str, ...] | list[str] | None = None,
                 private_terms: list[str] | None = None) -> str | None:
    """The task in neutral words, or None when no wording is free of what the scrubber marks.

    Example: ('I was born on [DOB] and my account is [FINANCIAL]. Which laptop is best for video editing?', 'laptops')
    -> 'Which laptop is best for video editing?'; ('My budget is $900, help me', 'laptops.gaming') -> 'laptops gaming'.
    """
    kept = [s.strip() for s in _SENTENCE.split(" ".join((query or "").split()))
            if s.strip() and not _PLACEHOLDER.search(s) and not _PERSONAL.search(s) and not _DIGITS.search(s)]
    task = " ".join(kept)[:TASK_CHARS].strip() or topic_words(topic)
    if scrub(task, categories or CATEGORIES, private_terms or []).spans:
        return None
    return task


def _alpha_words(text: str) -> list[str]:
    """Lower-case words without digits or placeholders. Example: 'I was born on [DOB] in 1990' -> i was born on in."""
    return [w for w in re.findall(r"[a-z']+", _PLACEHOLDER.sub(" ", text.lower())) if w]


def personal_sentences(query: str) -> list[list[str]]:
    """The sentences of a user's message that are about the user (first or second person, a placeholder or a
    number), as alpha words: what no shared note may repeat."""
    out = []
    for sentence in _SENTENCE.split(" ".join((query or "").split())):
        if _PLACEHOLDER.search(sentence) or _PERSONAL.search(sentence) or _DIGITS.search(sentence):
            out.append(_alpha_words(sentence))
    return [s for s in out if s]


def repeats_sentence(text: str, sentence: list[str], run: int = 5) -> bool:
    """Whether `text` holds `run` or more consecutive words of `sentence` (all of it, if shorter). Example:
    ('I was born on and my account is', ['i','was','born','on','in','and','my','account','is']) -> True."""
    words = _alpha_words(text)
    need = min(run, len(sentence))
    if need < 3:
        return False
    grams = {tuple(sentence[i:i + need]) for i in range(len(sentence) - need + 1)}
    return any(tuple(words[i:i + need]) in grams for i in range(len(words) - need + 1))
