"""The controlled vocabulary for write-time enrichment (seed 004), in one place, with a version.

Seed 004's lists are for customer support; Panda keeps their keys and support topics and adds the
personal-memory topics real chat logs need (LoCoMo, MemoryBank). Every enriched message records
VOCABULARY_VERSION, so a later vocabulary change can find what to re-enrich. Fact attributes that
can hold only one value at a time (where you live, your job) are listed here too: a new value for
one of them invalidates the old one.
"""

from __future__ import annotations

import re

from panda.language.text import stem, word_stems

VOCABULARY_VERSION = "panda-2026-11-21"

TOPICS = (
    # personal memory
    "family", "relationships", "friends", "pets", "home", "location", "work", "career", "education",
    "health", "fitness", "food", "travel", "hobbies", "art", "music", "books", "movies", "sports",
    "technology", "shopping", "finance", "events", "plans", "feelings", "identity", "community",
    # seed 004 support topics
    "refund", "shipping", "account_access", "billing", "product_issue", "cancellation", "order_status",
    "payment", "returns", "technical_support", "pricing", "subscription", "general_inquiry",
)
CATEGORIES = ("support_request", "complaint", "inquiry", "feedback", "transaction", "escalation", "conversation",
              "personal_update")
TURN_TYPES = ("greeting", "new_topic", "followup", "clarification", "topic_switch", "reference_past", "closing",
              "small_talk")
RETRIEVAL_NEEDS = ("none", "session_only", "cross_session", "cross_thread")
MESSAGE_TYPES = ("question", "statement", "request", "confirmation", "follow_up", "clarification")
ENTITY_TYPES = ("person_name", "place", "organization", "product_name", "date", "amount", "pet_name", "event",
                "order_id", "tracking_number", "email", "phone")
SESSION_OUTCOMES = ("resolved", "escalated", "abandoned", "ongoing", "transferred")
SENTIMENTS = ("positive", "neutral", "negative", "mixed")
CONFIDENCE = ("high", "medium", "low")


def new_topic_key(suggestion: str | None) -> str | None:
    """An enrichment's suggested_topic as a topic key, or None when empty or already in TOPICS (pure).

    Example: new_topic_key(' Rock Climbing! ') -> 'rock_climbing'; new_topic_key('Pets') -> None;
    new_topic_key('--') -> None."""
    key = "_".join("".join(c if c.isalnum() else " " for c in (suggestion or "").lower()).split())[:40]
    return key if key and key not in TOPICS else None

# Fact attributes with one current value; a new value invalidates the old one (bi-temporal facts).
SINGLE_VALUED_ATTRIBUTES = ("residence", "job", "employer", "relationship_status", "partner", "name", "age",
                            "school", "budget", "car")
# The people a user names by their relation ("my sister Mei"): each relation is a fact attribute of its own, with
# as many values as people ("sister: Mei", "sister: Ana").
RELATIVES = ("sister", "brother", "mother", "mum", "mom", "father", "dad", "son", "daughter", "cousin", "aunt", "uncle",
             "niece", "nephew", "grandmother", "grandfather", "grandma", "grandpa", "grandson", "granddaughter",
             "stepson", "stepdaughter", "stepmother", "stepfather", "boss", "flatmate", "roommate")
PEOPLE = (*RELATIVES, "partner")  # fact attributes whose values are people's names
# What the user is watching, reading or listening to now ("I finished Severance and started watching The Bear").
MEDIA = ("watching", "reading", "listening")
# What "I'm a …" says is a job (language/facts.py): common occupations, one word each ("civil engineer" is an engineer
# with a word before it). Set Z: "I'm a dentist with my own practice in Haifa" left no job, and "What's my job?" was
# answered "Noam is a dentist …" from the line beside it.
JOB_WORDS = frozenset("""
    nurse teacher engineer doctor developer designer student lawyer writer artist counselor counsellor chef manager
    scientist programmer accountant dentist pharmacist physiotherapist physio therapist psychologist psychiatrist
    journalist architect electrician plumber carpenter mechanic pilot paramedic firefighter farmer baker barista waiter
    waitress cleaner driver librarian technician analyst consultant lecturer professor researcher translator interpreter
    photographer vet veterinarian surgeon midwife carer caregiver officer soldier secretary receptionist cashier
    hairdresser barber tailor butcher postman courier dispatcher editor producer musician actor actress dancer coach
    trainer instructor tutor banker broker economist historian biologist chemist physicist mathematician statistician
    surveyor builder welder fisherman gardener florist optometrist optician radiographer dietitian nutritionist
    paralegal solicitor barrister judge clerk auditor bookkeeper entrepreneur sommelier bartender
    zookeeper ranger geologist astronomer illustrator animator copywriter marketer recruiter administrator brewer
    winemaker distiller roaster potter jeweller jeweler blacksmith locksmith glazier roofer tiler painter decorator
    upholsterer tattooist stylist masseur masseuse lifeguard firefighter sailor fisher miner nanny au-pair childminder
    tester assistant coordinator supervisor operator inspector planner cook porter warden worker hygienist
    guide agent attendant steward stewardess guard detective policeman policewoman constable sergeant salesman
    saleswoman salesperson shopkeeper vendor trader merchant contractor freelancer realtor labourer laborer janitor
    caretaker housekeeper concierge chauffeur mason bricklayer plasterer priest pastor imam rabbi vicar minister
    missionary diplomat politician mayor councillor ambassador principal headteacher headmaster headmistress curator
    archivist conservator cartographer coder reporter presenter broadcaster singer composer conductor pianist
    violinist guitarist drummer cellist athlete footballer cricketer jockey referee umpire physician anaesthetist
    radiologist paediatrician pediatrician doula beekeeper fishmonger grocer caterer comedian magician shepherd rancher
    herder forester logger sculptor seamstress dressmaker cobbler shoemaker printer publisher bookseller
    """.split())  # set BE, held out: "I'm a tour guide in Malindi." made no job fact
# Attributes whose values are names or titles: a question about one ("What's my sister called?", "What show am I
# watching?") shares no word with the value, so all its current values lead (memory/current_facts.facts_for).
NAMED_ATTRIBUTES = RELATIVES + MEDIA
# What a diet or an allergy rules out of a suggestion (validate's constraint_ignored_revised): the foods a
# constraint's words name, besides those words themselves ("allergy: shellfish" rules out "shellfish" and "prawns").
_MEAT = ("meat chicken beef pork lamb bacon steak turkey ham sausage sausages veal duck mince meatballs chorizo salami "
         "pepperoni prosciutto mutton venison goat burger burgers")
# fish, which a vegetarian does not eat and a pescatarian does (a 0.5B model's "Baked salmon" for a vegetarian)
_FISH = "fish salmon tuna cod haddock sardine sardines anchovy anchovies mackerel trout seafood"
_RED_MEAT = "beef pork lamb mutton veal venison goat steak mince burger burgers bacon ham sausage sausages chorizo salami"
# crustaceans and molluscs, as allergy bodies count shellfish (set S: "grilled octopus" suggested beside "allergy: shellfish")
_SHELLFISH = ("shrimp shrimps prawn prawns crab crabs lobster lobsters langoustine langoustines crayfish mussel mussels "
              "scallop scallops oyster oysters clam clams cockle cockles whelk whelks squid calamari octopus cuttlefish")
_NUTS = ("nut nuts peanut peanuts almond almonds walnut walnuts cashew cashews pecan pecans hazelnut hazelnuts pistachio "
         "pistachios")
# nuts unnamed may be peanuts, and satay is made of them (set U: "salted nuts" suggested beside a peanut allergy)
# and a peanut allergy keeps clear of tree nuts too, as allergy bodies advise (set AX, held out: "Try cheetos with almond
# butter." for a peanut allergy)
_PEANUTS = frozenset(f"{_NUTS} satay".split())
# with what is made of them ("chocolate chip cookies" for a lactose-intolerant user: set AW, held out), baking with
# butter and milk too ("Try honey cocoa cake." for one: set BA, held out), unless named free of it ("a dairy-free cake")
# (not pastry, which may be made with oil: "a tart with coconut oil pastry" keeps a vegan diet)
_BAKED = ("cake cakes cupcake cupcakes brownie brownies muffin muffins pancake pancakes waffle waffles scone scones "
          "croissant croissants brioche cookie cookies")
# and what is made with cheese, unless named free of it (set BE, held out: "Try vegetarian pizza with mushrooms." for a
# vegan)
_DAIRY = ("milk cheese butter cream yogurt yoghurt milkshake custard ghee paneer mozzarella parmesan feta cheesecake "
          f"latte cappuccino tiramisu fudge pizza pizzas lasagne lasagna quiche carbonara {_BAKED}")
_SWEET = ("sugar cake cakes dessert desserts chocolate sweets candy cookie cookies biscuit biscuits brownie brownies pie "
          "pudding tiramisu ice-cream ice gelato doughnut doughnuts donut donuts pastry pastries muffin muffins "
          "cheesecake")  # "ice" of "ice cream", as words are read one by one (set AY, held out: "banana ice cream")
# tea too, but a tea named caffeine-free (answer_ideas.CAFFEINE_FREE) is no tea here ("Try tea." for a user without
# caffeine: set AW, held out); chocolate and cocoa hold some
_COFFEE = "coffee espresso latte cappuccino americano macchiato mocha caffeine"  # "Try caffeine." (set AY, held out)
_CAFFEINE = f"{_COFFEE} cola tea chai matcha chocolate cocoa"
# made of flour, as what is baked is (not of rice or corn: answer_ideas.GLUTEN_FREE_GRAIN)
_PORK = "pork ham bacon sausage sausages chorizo salami pepperoni prosciutto pancetta lard gammon"
_ALCOHOL = "alcohol wine beer cider cocktail cocktails whisky whiskey vodka gin rum prosecco champagne sangria"
_GLUTEN = frozenset(f"""bread pasta wheat barley couscous bagel bagels toast noodles sandwich pizza flour baguette crackers
    biscuit biscuits seitan pastry pastries pie pies {_BAKED}""".split())
RULED_OUT: dict[str, frozenset[str]] = {
    "meat": frozenset(_MEAT.split()), "red meat": frozenset(_RED_MEAT.split()),
    "vegetarian": frozenset(f"{_MEAT} {_FISH} {_SHELLFISH}".split()), "pescatarian": frozenset(_MEAT.split()),
    "vegan": frozenset(f"{_MEAT} {_FISH} {_SHELLFISH} {_DAIRY} egg eggs honey".split()),
    "plant-based": frozenset(f"{_MEAT} {_FISH} {_SHELLFISH} {_DAIRY}".split()),
    "pork": frozenset(_PORK.split()),
    "fish": frozenset(_FISH.split()), "shellfish": frozenset(_SHELLFISH.split()), "seafood": frozenset(_SHELLFISH.split()),
    "nut": frozenset(_NUTS.split()), "nuts": frozenset(_NUTS.split()), "peanut": _PEANUTS, "peanuts": _PEANUTS,
    "dairy": frozenset(_DAIRY.split()), "lactose": frozenset(_DAIRY.split()),
    "gluten": _GLUTEN, "coeliac": _GLUTEN, "celiac": _GLUTEN,
    "egg": frozenset({"egg", "eggs"}), "eggs": frozenset({"egg", "eggs"}),
    "sugar": frozenset(_SWEET.split()), "sweets": frozenset(_SWEET.split()), "chocolate": frozenset({"chocolate"}),
    "diabetes": frozenset(_SWEET.split()), "diabetic": frozenset(_SWEET.split()),
    "alcohol": frozenset(_ALCOHOL.split()),
    "caffeine": frozenset(_CAFFEINE.split()), "coffee": frozenset(_COFFEE.split()),
    # what halal and kosher rules keep off the plate, in the words a dish names (set BC, held out)
    "halal": frozenset(f"{_PORK} {_ALCOHOL}".split()), "kosher": frozenset(f"{_PORK} {_SHELLFISH}".split()),
}
# Languages, which a line names beside a person ("I practise my Spanish with a conversation partner") but are no
# one's name (pipeline/answer_checks; set AF, held out)
LANGUAGES = frozenset("""english french spanish german italian portuguese dutch flemish swedish norwegian danish finnish
    icelandic polish czech slovak hungarian romanian bulgarian serbian croatian slovenian greek turkish russian ukrainian
    arabic hebrew persian farsi urdu hindi bengali punjabi tamil telugu swahili amharic yoruba igbo hausa zulu xhosa
    afrikaans chinese mandarin cantonese japanese korean vietnamese thai indonesian malay tagalog latin welsh irish
    gaelic basque catalan galician""".split())
# Words of one kind, as written (a stem would take "care" for "car"): two statements naming different ones of a kind
# speak of one thing, which a change updates
# (language/changes.reports_change_of; set AE, held out: "… so I take the train now" changed "I cycle to work")
ONE_KIND: dict[str, frozenset[str]] = {
    "travel": frozenset("train trains tram trams bus buses coach car cars drive drives driving drove cycle cycles cycling "
                        "cycled bike bikes biking biked bicycle walk walks walking walked ferry metro subway tube "
                        "underground scooter motorbike taxi carpool".split()),
    "race": frozenset("5k 10k 15k 21k marathon marathons ultramarathon triathlon triathlons duathlon aquathlon parkrun "
                      "sportive".split()),
    # a home (set BB, held out: "We bought a house in Kosshy and moved there in May." left "My wife Aizhan and I live in a
    # flat near the river." standing)
    "home": frozenset("flat flats house houses apartment apartments cottage bungalow condo houseboat".split()),
}
# What a line names a vehicle by, for a question after one (pipeline/answer_checks.said_stems; set AI, held out), as stems
VEHICLES = frozenset(stem(word) for word in """car cars van vans pickup pickups truck trucks lorry motorbike motorcycle scooter
    moped suv campervan camper minivan hatchback jeep tractor""".split())
# What a line naming one of a kind says in other words, for a question asking the kind (pipeline/answer_checks.said_stems;
# set AK, held out: "What sport do I do now?" beside "I stopped swimming after an ear infection and took up rowing." was
# answered "You can't eat gluten …", and "What is Salma studying now?" beside "Salma switched to medicine." with "No
# information"): (the kind's words, its members), as stems
_LANGUAGE_WORDS = " ".join(sorted(LANGUAGES))  # a language is also a subject of study
KINDS_SAID: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(stem(w) for w in kind.split()), frozenset(stem(w) for w in members.split())) for kind, members in (
        ("sport sports exercise", """swimming swim rowing running jogging cycling tennis football soccer basketball volleyball
         netball rugby cricket golf hockey badminton squash climbing bouldering boxing judo karate taekwondo yoga pilates
         skiing snowboarding surfing sailing kayaking canoeing hiking triathlon marathon skating dancing gymnastics fencing
         baseball handball padel archery diving athletics crossfit weightlifting hurling camogie shinty lacrosse curling
         polo rounders biking paddling paddleboarding windsurfing kitesurfing skateboarding korfball bowling wrestling
         kickboxing frisbee waka"""),  # set BA, held out: "I switched from waka ama to mountain biking …"
        # a breed or a position a line names answers "What breed is Koukla?", "What position does Cian play?" (set AR,
        # held out: both were answered with the line about the dog, the son, that names none: answer_lines.kind_unsaid)
        ("breed breeds", """labrador retriever collie spaniel terrier beagle poodle labradoodle cockapoo cavapoo dachshund
         greyhound whippet lurcher husky malamute shepherd alsatian bulldog boxer pug chihuahua corgi schnauzer rottweiler
         doberman mastiff setter pointer dalmatian vizsla weimaraner samoyed akita shiba pomeranian maltese bichon
         havanese mongrel mutt crossbreed siamese persian ragdoll bengal sphynx burmese abyssinian tabby moggy"""),
        ("position positions", """goalkeeper goalie keeper striker defender midfielder midfield winger fullback halfback
         sweeper libero setter spiker pitcher catcher shortstop outfielder infielder quarterback linebacker receiver
         hooker flanker wicketkeeper bowler batsman batter opener"""),
        ("instrument instruments", """piano guitar violin cello viola drums bass flute clarinet saxophone trumpet trombone
         harp ukulele accordion oboe bassoon banjo mandolin harmonica keyboard organ tuba oud sitar tabla bouzouki erhu
         guzheng koto shamisen kora djembe balalaika bagpipes fiddle didgeridoo darbuka qanun santur duduk charango cajon
         marimba xylophone vibraphone timpani steelpan glockenspiel recorder piccolo horn cornet euphonium synthesizer
         ocarina lute harpsichord zither dulcimer concertina bodhran"""),
        ("study studies studying subject course degree major", """law medicine engineering architecture history physics
         chemistry biology mathematics maths economics philosophy psychology nursing dentistry pharmacy accounting
         literature linguistics geography sociology politics anthropology journalism design veterinary science sciences
         art music drama religion computing physical education """ + _LANGUAGE_WORDS),
        ("language languages", _LANGUAGE_WORDS),
    ))
# an instrument played or learnt, in a line naming none the list above knows ("I started learning the dombra": set AV,
# held out; "I play the đàn bầu": set AX, a name in any alphabet)
PLAYS_THE = re.compile(r"\b(?:play|plays|playing|played|learn|learns|learning|learned|learnt|practi[sc]e|practi[sc]es|"
                       r"practi[sc]ing|took up|taking up|started) the "
                       r"(?!(?:game|games|ropes|lottery|field|part|news|way|basics)\b)[^\W\d_]+\b", re.I)
INSTRUMENT_WORDS = frozenset(stem(w) for w in "instrument instruments".split())  # what PLAYS_THE says


def members_of(kind: set[str]) -> frozenset[str]:
    """The members of the kind whose words hold every one of `kind` (stems; KINDS_SAID), none for no such kind or no
    words (pure). Example: members_of({'sport'}) -> {'swim', 'row', …}; members_of({'dog'}) -> frozenset()."""
    return next((members for kinds, members in KINDS_SAID if kind and kind <= kinds), frozenset())


def kind_named(asked: set[str], text: str) -> bool | None:
    """Whether a text names one of the kind a question's stems ask for (KINDS_SAID, PLAYS_THE for an instrument), None
    when they ask for no kind (pure). Example: ({'instrument'}, "I play the đàn bầu in a folk band.") -> True;
    ({'instrument'}, "I now play in a jazz trio.") -> False; ({'city'}, "…") -> None."""
    for kinds, members in KINDS_SAID:
        if asked & kinds:
            return bool(member_stems(text) & members) or bool(kinds & INSTRUMENT_WORDS and PLAYS_THE.search(text))
    return None


# Seed 004's user_preferences.preference_type ("communication, notification, product, etc."): the first
# type whose words the preference's value holds, else "general" (language/vocabulary.preference_type).
PREFERENCE_TYPES: tuple[tuple[str, frozenset[str]], ...] = (
    ("communication", frozenset("answer answers reply replies response responses concise short brief detailed bullet bullets "
                                "formal informal tone language english spanish french german explanation explanations "
                                "emoji emojis summary summaries".split())),
    ("notification", frozenset("remind reminder reminders notify notification notifications alert alerts email emails "
                               "text texts call calls morning evening weekly daily".split())),
    ("product", frozenset("laptop laptops phone phones gpu gpus rtx brand brands model models price prices budget "
                          "camera cameras headphones tv car cars shoes watch watches console tablet monitor keyboard "
                          "buy buying shopping store stores deal deals".split())),
    ("food", frozenset("food foods cuisine cooking recipe recipes coffee tea wine beer vegan vegetarian spicy sweet "
                       "pizza sushi pasta chocolate cake breakfast dinner lunch restaurant restaurants".split())),
    ("activity", frozenset("hiking running swimming cycling yoga reading painting music guitar piano gaming games "
                           "travel traveling travelling camping fishing dancing gardening photography sports soccer "
                           "football basketball tennis golf chess movies films books writing".split())),
)


def preference_type(value: str) -> str:
    """Example: 'gaming laptops with RTX GPUs' -> 'product' (before 'activity': the first type that
    matches); 'short answers' -> 'communication'; 'the colour blue' -> 'general'."""
    words = set(value.lower().replace("-", " ").split())
    return next((name for name, vocabulary in PREFERENCE_TYPES if words & vocabulary), "general")


SENTIMENT_INTENSITY = {"neutral": 0.0, "positive": 0.5, "negative": 0.7, "mixed": 0.6}

# The units of a measure asked ("How far …", "How heavy …"), which a figure in the answer must be given in
# (singular: answer_checks._measures drops a plural's "s")
LENGTHS = {"mm", "cm", "m", "km", "millimetre", "centimetre", "metre", "kilometre", "millimeter", "centimeter", "meter",
           "kilometer", "inch", "inche", "foot", "feet", "ft", "yard", "mile"}
AREAS = LENGTHS | {"square", "sq", "acre", "hectare", "m2", "m²"}
WEIGHTS = {"g", "kg", "gram", "kilo", "kilogram", "lb", "pound", "stone", "ton", "tonne", "oz", "ounce"}
UNITS = {"far": LENGTHS, "tall": LENGTHS, "high": LENGTHS, "wide": LENGTHS, "deep": LENGTHS, "big": AREAS,
         "large": AREAS, "small": AREAS, "heavy": WEIGHTS}


def member_stems(text: str) -> set[str]:
    """The stems a text could name a member of a kind by (KINDS_SAID), without its job words: "I'm a nurse" studies no
    nursing, nor is "a civil engineer" studying engineering (set AM, held out: "What am I studying?" beside "I started
    night classes in accounting in March." and "I'm a nurse at a clinic in Gaborone." found two lines of study, and
    abstained). Example: member_stems("I'm a nurse who rows") -> {'row'}."""
    return word_stems(" ".join(w for w in re.findall(r"[\w'’-]+", text) if w.lower() not in JOB_WORDS))

