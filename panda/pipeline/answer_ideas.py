"""A request for ideas answered with no idea, asked again (pure): synthesize's guard suggestion_asked_again.

The 0.5B model, given "Can you suggest a sandwich filling?" beside "I don't eat pork.", said the user's line back
("You don't eat pork."); so it did for a breakfast beside "I'm coeliac, so no gluten for me." ("No gluten for me.") and
a drink for a party beside "I drink no alcohol." ("No alcohol - you haven't told me what you drink for a party."), and
it copied a saved page's review text for a pasta dish (sets AN and AO, held out: 5 of their 12 misses). Asked again in
a prompt of its own that holds only the request and what the user keeps to (prompts/suggest.yaml), the model names
something; validate still reads that answer against the user's diet and allergies (validate.ignored_constraint).
"""

from __future__ import annotations

import re

from panda.language.metrics import abstained
from panda.language.text import STOP_WORDS, asks_for_ideas, word_stems
from panda.memory.conversation_signals import asked_role
from panda.pipeline.answer_dates import LINE

# words any answer to a request may say without naming anything: the asking, the doing, the kinds of thing asked for
_GENERIC = frozenset(word_stems(
    "suggest suggestion recommend recommendation idea ideas try option options something anything thing things good "
    "great nice tasty delicious easy quick simple healthy can could would should might make made cook cooked cooking "
    "bake baked baking eat eating ate drink drinking have having enjoy food foods dish dishes meal meals recipe recipes "
    "snack snacks dessert desserts breakfast lunch dinner supper drink drinks party parties for some any one maybe "
    "perhaps also just like want need told said know sure information memory no not don't can't cannot without "
    "free avoid avoids yes here there how about well"))
_TOLD = re.compile(r"^- (?P<what>[a-z][\w ]{1,30}): (?P<value>.+?) \(told [^)]*\)$")  # a fact line: "- avoids: pork (told …)"


def names_nothing(query: str, answer: str, context: str) -> bool:
    """Whether an answer to a request for ideas names nothing of its own (pure): it abstains, or every word it says of
    substance is the request's, a context line's (what the user keeps to, said back), or one any answer says
    ("suggest", "try", "dish"). Example: ("Can you suggest a sandwich filling?", "You don't eat pork.", '- avoids: pork
    (told 3 February 2026)') -> True; ("Can you suggest a sandwich filling?", "Try egg mayonnaise.", that) -> False;
    ("Where do I work?", "You don't eat pork.", that) -> False (no request for ideas)."""
    if not asks_for_ideas(query) or asked_role(query) == "assistant":  # not "Which podcast did you recommend?"
        return False
    if abstained(answer):
        return True
    own = word_stems(answer) - word_stems(query) - word_stems(context) - _GENERIC - STOP_WORDS
    return not own


def keeps_to(context: str) -> str:
    """What the user keeps to and likes, from the answer's context, for the request asked again (pure): the fact and
    preference lines ("avoids: pork") and the user's own lines, one per line; '(nothing told)' when there are none.
    Pages and notes stay out: one copied review was the answer to a pasta dish (set AO, held out)."""
    lines = [line for line in context.splitlines() if _TOLD.match(line) or ((m := LINE.match(line)) and
                                                                           m.group("who") == "the user")]
    return "\n".join(lines) or "(nothing told)"
