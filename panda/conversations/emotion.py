"""Seed 001's emotion signals (urgency, sentiment, risk) read from a message's own words (pure).

Seed 001 computes vehemence = urgency*0.5 + |sentiment|*0.3 + risk*0.2 from "Emotion Knight" signals.
Panda's write-time enrichment (seed 004) gives urgency (importance) and a sentiment label for ingested
messages, but no model gives risk, and a `panda run` turn had none of the three: every turn and
risk term was a constant. These lexicon rules give all three for any text, with no model call:

- risk: harm to the person's safety, health, money or security ("chest pain", "I was scammed",
  "evicted", "thinking of ending it"), 1.0 for danger to life, 0.6 for serious trouble, else 0;
- urgency: 0.9 when the message says now ("immediately", "asap", "emergency"), 0.6 for a plea for
  help or struggle, else the seed's default 0.3;
- sentiment: the balance of positive and negative words in [-1, 1], stronger with an intensifier.

They are deliberately coarse: a keyword cannot read irony. Enrichment's own urgency and sentiment,
when a message has them, take precedence (conversations/ingest.vehemence); risk always comes from here.
Departure: the seed's examples ("I need help immediately" -> 0.95) cannot come out of its own
formula without sentiment and risk; Panda keeps the formula.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SEVERE = re.compile(
    r"\b(suicid\w*|kill (?:myself|me)|end(?:ing)? (?:it all|my life)|self[- ]harm|overdos\w*|heart attack|chest pains?|"
    r"can'?t breathe|stroke|seizure|unconscious|bleeding (?:heavily|badly)|emergency room|call 911|abus(?:e|ed|ive)|"
    r"assault\w*|threaten\w*|in danger)\b", re.I)
_SERIOUS = re.compile(
    r"\b(scam(?:med)?|fraud\w*|hack(?:ed)?|stolen|identity theft|evict\w*|foreclos\w*|bankrupt\w*|debt|"
    r"lost my (?:job|house|home|wallet|passport)|laid off|fired|accident|injur\w*|hospital\w*|diagnos\w*|"
    r"cancer|lawsuit|sued|arrest\w*|panic attacks?|depress\w*|anxiety)\b", re.I)
_NOW = re.compile(r"\b(immediately|asap|urgent(?:ly)?|emergency|right now|right away|as soon as possible|hurry)\b", re.I)
_PLEA = re.compile(r"\b(help me|need help|please help|struggl\w*|desperate\w*|can'?t cope|overwhelm\w*|stuck)\b", re.I)
_POSITIVE = frozenset("""great good love loved lovely happy glad excited amazing awesome wonderful fantastic enjoy enjoyed
    thrilled grateful thanks thank proud delighted excellent perfect fun beautiful nice relieved best better solid
    reliable recommended recommend impressive sturdy affordable""".split())
_NEGATIVE = frozenset("""bad sad angry upset hate hated terrible awful worried worry afraid scared frustrated annoyed
    disappointed lonely hurt pain sick tired stressed struggling miserable horrible depressed anxious cry crying
    lost broke broken disappointing poor weak noisy overpriced flimsy buggy worse worst problem problems""".split())
_INTENSIFIERS = frozenset("really so very extremely totally absolutely incredibly super truly".split())
_WORD = re.compile(r"[a-z']+")


@dataclass(frozen=True)
class Emotion:
    urgency: float
    sentiment: float
    risk: float


def risk_of(text: str) -> float:
    """Example: 'I have chest pain' -> 1.0; 'I think I was scammed' -> 0.6; 'I love hiking' -> 0.0."""
    return 1.0 if _SEVERE.search(text) else 0.6 if _SERIOUS.search(text) else 0.0


def urgency_of(text: str, default: float = 0.3) -> float:
    """Example: 'I need help immediately' -> 0.9; "I'm really struggling with this" -> 0.6; 'Hi' -> 0.3."""
    return 0.9 if _NOW.search(text) else 0.6 if _PLEA.search(text) else default


def sentiment_of(text: str) -> float:
    """Example: "I'm feeling great!" -> 0.5; "I'm really struggling and so tired" -> -1.0; 'The cage is 40 cm' -> 0."""
    words = _WORD.findall(text.lower())
    positive = sum(w in _POSITIVE for w in words)
    negative = sum(w in _NEGATIVE or w.startswith("struggl") for w in words)
    if positive == negative:
        return 0.0
    strength = min(1.0, 0.5 * abs(positive - negative) + (0.25 if any(w in _INTENSIFIERS for w in words) else 0.0))
    return strength if positive > negative else -strength


def signals(text: str) -> Emotion:
    return Emotion(urgency=urgency_of(text), sentiment=sentiment_of(text), risk=risk_of(text))
