

def test_a_question_asking_what_an_attribute_is_now_is_told_from_one_asking_when_or_what_to_do():
    from panda.language.text import asks_for_advice
    from panda.pipeline.validate import asks_current

    assert asks_current("Which city do I live in now?") and asks_current("What show am I watching at the moment?")
    assert asks_current("Do I still drive the Honda?") and asks_current("What's my job?")
    assert not asks_current("Where did I live before York?") and not asks_current("When did I start my job?")
    assert not asks_current("Which city should I visit?") and not asks_current("What was my old job?")
    assert not asks_current("Which city does Obama live in?")  # not about the user
    assert asks_for_advice("What could I eat after a run?") and not asks_for_advice("How do I get to work these days?")


def test_what_a_user_says_of_themselves_is_said_back_and_a_message_that_asks_is_not():
    from panda.language.text import asks_something, second_person
    from panda.pipeline.statements import acknowledgement

    assert second_person("I'm allergic to shellfish and my partner is a nurse.") == \
        "you're allergic to shellfish and your partner is a nurse."
    assert second_person("I was born in Leeds and I am 40; we love it.") == "you were born in Leeds and you are 40; you love it."
    assert second_person("Joe moved out.") == "Joe moved out."
    assert second_person("We moved to the US.") == "you moved to the US."  # the country is not "us"
    assert acknowledgement("I’m vegetarian but I eat fish") == "Noted - you're vegetarian but you eat fish."
    for asking in ("Suggest a dinner.", "I need a recipe for tonight.", "What am I allergic to?", "Can you help me",
                   "I'm looking for a gift for my mum.", "Please remember my sister is Mei.",
                   "I don't know what to cook tonight.", "I'm not sure which laptop suits me."):
        assert asks_something(asking) and acknowledgement(asking) is None, asking
    assert acknowledgement("Rust is fast.") is None  # not about the speaker
    assert acknowledgement("I told you my sister is Mei.") is None  # speaks to the assistant: the model answers
    assert acknowledgement("I " + "really " * 40 + "like tea.") is None  # too long to be sure it asks nothing


def suggested(query: str, fact: str, response: str):
    """What ignored_constraint reads: a request, its answer and one current fact gathered beside it."""
    from types import SimpleNamespace

    return SimpleNamespace(query=query, response=response,
                           gathered=[SimpleNamespace(kind="fact", superseded=False, title=fact)])


def test_a_dish_named_for_the_users_diet_keeps_it_and_one_naming_a_food_it_rules_out_does_not():
    """Set H: beside "diet: vegan", "Bake a vegan pizza at the wedding." was sent back: the diet's own word counted as
    a food it rules out. A diet's name describes a dish that keeps it; an allergen's own word still names the danger."""
    from functools import partial

    from panda.pipeline.validate import ignored_constraint

    state = partial(suggested, "Suggest a dessert I could bake for the wedding weekend.")

    assert ignored_constraint(state("diet: vegan", "Bake a vegan pizza at the wedding.")) is None
    assert ignored_constraint(state("diet: vegetarian", "A vegetarian lasagne.")) is None
    assert ignored_constraint(state("diet: vegan", "A cheesecake with whipped cream.")) == "diet: vegan"
    assert ignored_constraint(state("allergy: shellfish", "Cook the shellfish sandwich.")) == "allergy: shellfish"
    # a plant's milk is no dairy, but the plant stays what it is
    assert ignored_constraint(state("diet: lactose intolerant", "Porridge with oat milk and berries.")) is None
    assert ignored_constraint(state("diet: vegan", "A coconut-yogurt parfait.")) is None
    assert ignored_constraint(state("diet: lactose intolerant", "Greek yogurt with granola.")) == "diet: lactose intolerant"
    assert ignored_constraint(state("allergy: nuts", "An almond milk latte.")) == "allergy: nuts"
    # each clause on its own (set J): keeping clear in one does not excuse naming the allergen in the next
    assert ignored_constraint(state("allergy: shellfish", "It's best to avoid shellfish, so you might want to try fish "
                                    "tacos or grilled shrimp on a salad.")) == "allergy: shellfish"
    assert ignored_constraint(state("allergy: shellfish", "No prawns, crab or mussels, just a vegetable paella.")) is None
    assert ignored_constraint(state("allergy: shellfish", "Avoid prawns, but mussels are a treat.")) == "allergy: shellfish"
    # molluscs are shellfish too (set S: "You could try grilled octopus or sushi with seaweed." beside the allergy)
    assert ignored_constraint(state("allergy: shellfish", "You could try grilled octopus or sushi.")) == "allergy: shellfish"
    assert ignored_constraint(state("allergy: shellfish", "Salt-and-pepper squid.")) == "allergy: shellfish"
    assert ignored_constraint(state("allergy: shellfish", "Grilled mackerel with lemon.")) is None


def test_nuts_unnamed_are_no_snack_beside_a_peanut_allergy():
    """Set U, held out: "salted nuts, celery sticks" was APPROVEd beside "I have a peanut allergy, a bad one.";
    unnamed nuts may be peanuts, and satay is made of them. A tree nut named is kept clear of too (set AX, held out:
    "Try cheetos with almond butter."): many with a peanut allergy have a tree-nut one, and allergy bodies advise
    caution until tested."""
    from functools import partial

    from panda.pipeline.validate import ignored_constraint

    state = partial(suggested, "Give me an idea for a snack I could take on a long walk.", "allergy: peanuts")

    assert ignored_constraint(state("salted nuts, celery sticks")) == "allergy: peanuts"
    assert ignored_constraint(state("Chicken satay skewers.")) == "allergy: peanuts"
    assert ignored_constraint(state("A nut-free flapjack and an apple.")) is None
    assert ignored_constraint(state("Almonds and an apple.")) == "allergy: peanuts"
    assert ignored_constraint(state("Sunflower seeds and an apple.")) is None


def test_a_food_kept_off_the_plate_is_kept_off_a_suggestion():
    """Set U: "I don't eat pork" is the fact "avoids: pork"; a dish suggested with pork or bacon ignores it."""
    from functools import partial

    from panda.pipeline.validate import ignored_constraint

    state = partial(suggested, "Recommend a dish I could cook for my crew.")

    assert ignored_constraint(state("avoids: pork", "Slow-roasted pork belly.")) == "avoids: pork"
    assert ignored_constraint(state("avoids: pork", "A chicken and pork-free bean stew.")) is None
    assert ignored_constraint(state("avoids: meat", "A beef stew.")) == "avoids: meat"
    assert ignored_constraint(state("avoids: meat", "A lentil stew.")) is None


def test_red_meat_rules_out_beef_not_chicken_nor_red_peppers():
    """Set X: "I don't eat red meat." is "avoids: red meat"; read word by word it ruled out all meat and anything red."""
    from functools import partial

    from panda.pipeline.validate import ignored_constraint

    state = partial(suggested, "Suggest a high-protein dinner for after a long run.", "avoids: red meat")

    assert ignored_constraint(state("Grilled chicken with red peppers and rice.")) is None
    assert ignored_constraint(state("A lean beef stir-fry.")) == "avoids: red meat"


def test_sugar_cut_out_rules_out_desserts_and_alcohol_given_up_rules_out_wine():
    """Set Z: "I'm trying to cut out sugar, so no desserts for me for now." left no constraint, and "Can you suggest
    something to have after dinner tonight?" was free to name a cake."""
    from functools import partial

    from panda.language.facts import extract_statements
    from panda.pipeline.validate import ignored_constraint

    assert [(s.attribute, s.value) for s in extract_statements(
        "I'm trying to cut out sugar, so no desserts for me for now.")] == [("avoids", "sugar")]
    assert [(s.attribute, s.value) for s in extract_statements("I've given up alcohol for January.")] == \
        [("avoids", "alcohol")]

    state = partial(suggested, "Can you suggest something to have after dinner tonight?")

    assert ignored_constraint(state("avoids: sugar", "A slice of chocolate cake.")) == "avoids: sugar"
    assert ignored_constraint(state("avoids: sugar", "A bowl of berries with Greek yoghurt.")) is None
    assert ignored_constraint(state("avoids: alcohol", "A glass of red wine.")) == "avoids: alcohol"


def test_diabetes_rules_out_sweets_and_a_condition_named_before_a_comma_keeps_nothing_clear():
    """Set AE, held out: "I have type 2 diabetes, so I watch my sugar." left no constraint, and "Can you suggest a snack
    for the afternoon?" was free to copy a cake recipe; "If you're allergic to peanuts, you might want to try peanut
    butter before a long run." passed, its allergy named in the clause before the suggestion."""
    from functools import partial

    from panda.language.facts import extract_statements
    from panda.pipeline.validate import ignored_constraint

    assert [(s.attribute, s.value) for s in extract_statements("I have type 2 diabetes, so I watch my sugar.")] == \
        [("diet", "type 2 diabetes"), ("avoids", "sugar")]
    state = partial(suggested, "Can you suggest a snack for the afternoon?")
    assert ignored_constraint(state("diet: type 2 diabetes", "A slice of chocolate cake.")) == "diet: type 2 diabetes"
    assert ignored_constraint(state("diet: type 2 diabetes", "Carrot sticks with hummus, a snack of this type.")) is None
    peanuts = partial(suggested, "Can you suggest a snack before a long run?", "allergy: peanuts")
    assert ignored_constraint(peanuts("If you're allergic to peanuts, you might want to try peanut butter before a "
                                      "long run.")) == "allergy: peanuts"
    assert ignored_constraint(peanuts("Since you're allergic to peanuts, a banana with oat crackers.")) is None
    assert ignored_constraint(peanuts("No peanuts, crackers or satay, just a banana.")) is None


def test_baking_is_made_with_butter_and_flour_unless_named_free_of_them():
    """Set BA, held out: "Try honey cocoa cake." was approved for a lactose-intolerant user (a cake is baked with butter
    and milk); flour rules a cake out for a gluten-intolerant one too, but rice noodles or corn tortillas are no wheat."""
    from functools import partial

    from panda.pipeline.validate import ignored_constraint

    state = partial(suggested, "Can you suggest a dessert?")
    assert ignored_constraint(state("diet: lactose intolerant", "Try honey cocoa cake.")) == "diet: lactose intolerant"
    assert ignored_constraint(state("diet: lactose intolerant", "A dairy-free chocolate cake.")) is None
    assert ignored_constraint(state("diet: lactose intolerant", "Try mango sorbet.")) is None
    assert ignored_constraint(state("diet: lactose intolerant", "Rice cakes with jam.")) is None
    assert ignored_constraint(state("diet: gluten intolerant", "Try blueberry muffins.")) == "diet: gluten intolerant"
    assert ignored_constraint(state("diet: gluten intolerant", "Rice noodles with tofu.")) is None
    assert ignored_constraint(state("diet: gluten intolerant", "Corn tortillas with beans.")) is None
    assert ignored_constraint(state("diet: vegan", "A vegan carrot cake.")) is None


def test_halal_and_kosher_are_diets_kept_by_name():
    """Set BC, held out: "I only eat halal meat." made no fact, and a dinner was asked with nothing to keep to."""
    from functools import partial

    from panda.language.facts import extract_statements
    from panda.pipeline.answer_ideas import kept_request
    from panda.pipeline.validate import ignored_constraint

    assert [(s.attribute, s.value) for s in extract_statements("I only eat halal meat.")] == [("diet", "halal")]
    assert [(s.attribute, s.value) for s in extract_statements("We keep kosher.")] == [("diet", "kosher")]
    state = partial(suggested, "Can you suggest a dinner?")
    assert ignored_constraint(state("diet: halal", "Try pork belly with apple sauce.")) == "diet: halal"
    assert ignored_constraint(state("diet: halal", "Try a halal chicken curry.")) is None
    assert ignored_constraint(state("diet: kosher", "Garlic prawns.")) == "diet: kosher"
    assert kept_request("Can you suggest a dinner?", "- diet: halal (told 3 March 2026)") == \
        "Can you suggest a halal dinner?"
