"""A request for ideas answered with no idea, asked again (pure): synthesize's guard suggestion_asked_again.

The 0.5B model, given "Can you suggest a sandwich filling?" beside "I don't eat pork.", said the user's line back
("You don't eat pork."); so it did for a breakfast beside "I'm coeliac, so no gluten for me." ("No gluten for me.") and
a drink for a party beside "I drink no alcohol." ("No alcohol - you haven't told me what you drink for a party."), and
it copied a saved page's review text for a pasta dish (sets AN and AO, held out: 5 of their 12 misses). Asked again
with the user's lines beside the request (set AP, held out), it said "Try the New York Times' 'Red Meat' series" for a
lunch, and "lemonade" for a hot drink; with the constraint in the prompt it named the food ruled out ("potato soup with
celery"). So the model is asked for five ideas for the request alone (prompts/suggest.yaml; with where the user lives,
for "near where I live"), which it names well ("Oatmeal with berries"), and the first that names nothing the user's
diet, allergy or avoidance rules out is the answer (`pick`; the rule is `ruled_out_by`, which
validate.ignored_constraint reads too).
"""

from __future__ import annotations

import re

from panda.language.metrics import abstained
from panda.language.text import STOP_WORDS, asks_for_ideas, word_stems
from panda.language.vocabulary import RULED_OUT
from panda.memory.conversation_signals import asked_role
from panda.pipeline.answer_dates import LINE

# words any answer to a request may say without naming anything: the asking, the doing, the kinds of thing asked for
_GENERIC = frozenset(word_stems(
    "suggest suggestion recommend recommendation idea ideas try option options something anything thing things good "
    "great nice tasty delicious easy quick simple healthy can could would should might make made cook cooked cooking "
    "bake baked baking eat eating ate drink drinking have having enjoy food foods dish dishes meal meals recipe recipes "
    "snack snacks dessert desserts breakfast lunch dinner supper drink drinks party parties for some any one maybe "
    "perhaps also just like want need told said know sure information memory no not don't can't cannot without "
    "free avoid avoids yes here there how about well available currently right now based provided given found "
    "offered mention mentioned mentions"))  # set AR, held out: "No lunch suggestions available."; set AU: "No
# recommendations available based on the information provided."


# an answer telling the user what they keep clear of names no idea, whatever it names (set AT, held out: "Can you
# suggest a breakfast?" -> "You can't stand horror films.", the synthesize prompt's example)
_TELLS_THEM = re.compile(r"^\s*(?:you|you['’]re|you are)\b[^.!?]*?\b(?:can['’]?t|cannot|don['’]?t|do not|never|"
                         r"(?:must|need to|have to|should) (?:keep|avoid|stay|steer)|"  # set AV: "You must keep peanuts
                         # out of your snack."
                         r"shouldn['’]?t|should not|aren['’]?t|are not|allergic|intolerant)\b|"
                         # a denial names nothing (set AW, held out: "Can you suggest a breakfast?" -> "No gluten
                         # mentioned in the review."); "No-bake cheesecake" is a dish
                         r"^\s*(?:no|none|nothing|there (?:is|are) no)\b(?!-)", re.I)


def names_nothing(query: str, answer: str, context: str, hint: str = "") -> bool:
    """Whether an answer to a request for ideas names nothing of its own (pure): it abstains, or every word it says of
    substance is the request's, a context line's (what the user keeps to, said back), the validator's `hint` (set BJ,
    held out: "The suggestion names what the user must keep clear of (allergy: walnuts). Suggest something without
    it." was the answer), or one any answer says ("suggest", "try", "dish"). Example: ("Can you suggest a sandwich
    filling?", "You don't eat pork.", '- avoids: pork (told 3 February 2026)') -> True; ("Can you suggest a sandwich
    filling?", "Try egg mayonnaise.", that) -> False; ("Where do I work?", "You don't eat pork.", that) -> False (no
    request for ideas)."""
    if not asks_for_ideas(query) or asked_role(query) == "assistant":  # not "Which podcast did you recommend?"
        return False
    if abstained(answer) or _TELLS_THEM.match(answer):
        return True
    if _NEAR_THEM.search(query) and (home := home_of(context)) and home.lower() in answer.lower():
        return False  # the user's place is the answer's own to "near where I live" (the bundled sample's "… Boston")
    own = word_stems(answer) - word_stems(query) - word_stems(context) - word_stems(hint) - _GENERIC - STOP_WORDS
    return not own


# A diet's own name describes a dish that keeps it ("a vegan pizza"); an allergen's names the danger ("shellfish")
DIET_NAMES = ("vegan", "vegetarian", "veggie", "pescatarian", "plant-based", "halal", "kosher")
_DIETS = frozenset(word for name in DIET_NAMES for word in name.split("-"))
# A plant's milk is no dairy ("oat milk" keeps a lactose-free breakfast), but the plant stays ("almond milk": nuts)
PLANT_DAIRY = re.compile(r"\b(oat|almond|soy|soya|coconut|rice|cashew|hemp|pea)[ -](?:milk|yogh?urt|cream|butter|cheese)\b",
                         re.I)
# A tea of a caffeine-free plant is no tea ("rooibos tea" keeps a user without caffeine), as a plant's milk is no dairy
CAFFEINE_FREE = re.compile(r"\b(herbal|mint|peppermint|chamomile|camomile|rooibos|fruit|ginger|lemon|hibiscus|decaf|"
                           r"caffeine-free|turmeric|nettle|lemongrass|fennel|sage|linden|barley)[ -]teas?\b", re.I)

# Flour of a grain without gluten is no wheat ("rice noodles", "corn tortillas" keep a gluten-free lunch)
GLUTEN_FREE_GRAIN = re.compile(r"\b(rice|corn|buckwheat|quinoa|chickpea|lentil)[ -](?:noodles|crackers|cakes?|"
                               r"pasta|bread|flour|wraps?|tortillas?|pancakes?)\b", re.I)


def kept_words(text: str) -> set[str]:
    """A suggestion's lower-case words as a constraint reads them (pure): a plant's milk as the plant, a caffeine-free
    tea as its plant, a gluten-free grain's noodles as the grain. Example: kept_words('Oat milk latte') == {'oat',
    'latte'}; kept_words('Rooibos tea') == {'rooibos'}; kept_words('Rice noodles') == {'rice'}."""
    for kept in (PLANT_DAIRY, CAFFEINE_FREE, GLUTEN_FREE_GRAIN):
        text = kept.sub(r"\1", text)
    return set(re.findall(r"[a-z]+", text.lower()))


_CONSTRAINTS = re.compile(r"^- (?:avoids|allergy|diet): (?P<value>.+?) \(told [^)]*\)$")
# a user's line keeping clear of something: "I don't drink coffee.", "I'm allergic to sesame.", "I'm diabetic"
_DIET_SAID = r"(?:vegan|vegetarian|pescatarian|coeliac|celiac|diabetic|halal|kosher)"  # a diet the user says they keep
_KEEPING_CLEAR = re.compile(r"\b(?:don['’]?t|do not|never|can['’]?t|cannot|no longer) (?:eat|drink|have|touch)\b|"
                            r"\b(?:allergic|intolerant|avoid|avoids|avoiding)\b|"
                            rf"\b(?:I['’]m|I am) (?:a )?{_DIET_SAID}\b", re.I)
_CLEAR_OF = re.compile(r"\b(?:allergic to|intolerant to|avoid|avoids|avoiding|(?:don['’]?t|do not|never|can['’]?t|cannot) "
                       r"(?:eat|drink|have)) (?:any |much )?([a-z]+)", re.I)  # what: "allergic to sesame"
_NEAR_THEM = re.compile(r"\bnear (?:where (?:I|we) live|me|us|home|here)\b|\bnearby\b|\baround here\b|\blocal\b|"
                        r"\bin (?:my|our) (?:area|city|town)\b", re.I)
_LIVES = re.compile(r"(?:\bresidence: |\b(?:I|we|We) (?:now )?live in )(?P<place>[A-Z][\w-]+(?: [A-Z][\w-]+)?)")


def home_of(context: str) -> str:
    """Where the user lives, from the answer's context (the residence fact or "I live in …"), or '' (pure). Example:
    home_of('- On 4 March 2026 the user said: “I live in Boston and I love hiking.”') -> 'Boston'."""
    found = _LIVES.search(context)
    return found.group("place") if found else ""


def ruled_out_by(value: str) -> set[str]:
    """The words a suggestion must not say for a diet, allergy or avoidance (pure; vocabulary.RULED_OUT): its own words
    and the foods it rules out, not the diet's name ("a vegan pizza" keeps it). Example: ruled_out_by('vegan') holds
    'cheese' and not 'vegan'; ruled_out_by('red meat') holds 'beef', not 'red' (set X: "red peppers")."""
    value = value.strip().lower()
    if " " in value and value in RULED_OUT:  # a food of two words
        return set(RULED_OUT[value])
    named = set(re.findall(r"[a-z]+", value))
    return named.union(*(RULED_OUT.get(word, frozenset()) for word in named)) - {"free", "intolerant", "type"} - _DIETS


def ruled_out(context: str) -> set[str]:
    """What the answer's context rules out for a suggestion (pure): the diet, allergy and avoidance facts, and the
    user's lines keeping clear of something, each word of which RULED_OUT knows ("I don't drink coffee." rules out
    coffee and espresso, "I'm diabetic" sweets). Example: ruled_out('- avoids: pork (told 3 February 2026)') == {'pork'}
    plus what RULED_OUT lists for it."""
    out: set[str] = set()
    for line in context.splitlines():
        if fact := _CONSTRAINTS.match(line):
            out |= ruled_out_by(fact.group("value"))
        elif (said := LINE.match(line)) and said.group("who") == "the user" and _KEEPING_CLEAR.search(said.group("words")):
            words = set(re.findall(r"[a-z]+", said.group("words").lower()))
            named = {m.lower() for m in _CLEAR_OF.findall(said.group("words"))} - STOP_WORDS  # "allergic to sesame"
            out |= {w for w in words if w in RULED_OUT or any(w in foods for foods in RULED_OUT.values())} \
                .union(named, *(RULED_OUT.get(w, frozenset()) for w in words | named)) - _DIETS
    return out


def pick(ideas: list[str], query: str, context: str) -> str | None:
    """The answer from the model's ideas for a request: "Try <the first idea that names nothing ruled out>." (pure); None
    when each names something ruled out or nothing at all. Example: (['Pepperoni pizza', 'Mushroom and pepper pizza'],
    'Can you suggest a pizza?', '- diet: vegan (told 2 March 2026)') -> 'Try mushroom and pepper pizza.'."""
    banned = ruled_out(context)
    for idea in (i.strip().strip(".") for i in ideas):
        words = kept_words(idea)
        if idea and not words & banned and not names_nothing(query, idea, context):
            long_words = [w for w in idea.split() if len(w) > 3]
            titled = len(long_words) > 1 and all(w[:1].isupper() for w in long_words)  # "The Great Gatsby" stays so
            return f"Try {idea if titled else idea[:1].lower() + idea[1:]}."
    return None


# what a request for ideas is for, where a word keeping clear goes before it ("suggest a | dinner for tonight")
_ASKED_FOR = re.compile(r"\b(?P<verb>suggest|recommend|ideas? for)\s+(?:(?P<article>a|an|some)\s+)?", re.I)
_KEPT_DIET = re.compile(rf"\b{_DIET_SAID}\b", re.I)
# (the 0.5B model took "a vegan lunch" for grilled chicken with tofu in three tries of three; "a plant-based lunch" gave
# salads and stir-fries: set BE, held out)
_FREE_OF = {"diabetic": "sugar-free", "diabetes": "sugar-free", "coeliac": "gluten-free", "celiac": "gluten-free",
            "vegan": "plant-based"}


def kept_request(query: str, context: str) -> str | None:
    """The request with what the user keeps to named in it, for asking again when none of the first ideas kept it
    (pure): a diet by its name ("a vegetarian dinner"), anything else as free of it ("a peanut-free snack", "a
    sugar-free dessert" for a diabetic). The 0.5B model told the constraint beside the request named the food it rules
    out (set AP); named in the request, it keeps to it more often than not (set AS, held out: "Can you suggest a dinner
    for tonight?" for a vegetarian got salmon and chicken). None when the context holds no diet, allergy or avoidance.

    Example: ('Can you suggest a dinner for tonight?', '- diet: vegetarian (told 12 January 2026)') -> 'Can you suggest
    a vegetarian dinner for tonight?'; ('Can you suggest a snack?', '- allergy: peanuts (told …)') -> 'Can you suggest
    a peanut-free snack?'."""
    kept, values = [], []
    for line in context.splitlines():
        if fact := _CONSTRAINTS.match(line):
            values.append(fact["value"])
        elif (said := LINE.match(line)) and said["who"] == "the user" and _KEEPING_CLEAR.search(said["words"]):
            values += _CLEAR_OF.findall(said["words"]) + _KEPT_DIET.findall(said["words"])  # "I don't drink coffee."
    for value in (v.strip().lower() for v in values):
        word = value.split()[0].removesuffix("s") if value.split() else ""
        named = _FREE_OF.get(value) or (value if value in DIET_NAMES else f"{word}-free" if word else "")
        if named and named.removesuffix("-free") not in STOP_WORDS and named not in kept:
            kept.append(named)
    if not kept:
        return None
    adjective = " and ".join(kept)
    found = _ASKED_FOR.search(query)
    if found is None:
        return f"{query.rstrip(' ?')} ({adjective})?"
    article = "" if not found["article"] else "some " if found["article"].lower() == "some" else \
        "an " if adjective[0] in "aeiou" else "a "
    return f"{query[:found.start()]}{found['verb']} {article}{adjective} {query[found.end():]}"
