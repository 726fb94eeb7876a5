"""What an answer must hold for the kind of question asked (answer_checks, answer_dates), read on set S's failures:
a relative's name, a measure said without the thing's name, the household's own thing, and a day the line states."""

from panda.pipeline.answer_checks import unanswered
from panda.pipeline.answer_dates import times_said, undated_answer
from panda.pipeline.asked_about import told_about


def said(day: str, words: str) -> str:
    return f"- On {day} the user said: “{words}”"


def test_a_relatives_name_comes_from_a_line_naming_that_relation():
    """Set S: "What is my wife's name?" -> "You turned six in January when Yui was born." (Yui is his daughter)."""
    daughter = "- daughter: Yui (told 3 February 2026)\n" + said("3 February 2026", "My daughter Yui turned six in January.")
    assert unanswered("What is my wife's name?", "You turned six in January when Yui was born.", daughter)
    assert unanswered("What is my wife's name?", "Your wife is Yui.", daughter)
    assert unanswered("What is my daughter's name?", "Your daughter is Yui.", daughter) is False
    # one relation however it is said
    assert unanswered("What's my husband's name?", "Lars.", said("2 March 2026", "My partner Lars is a sound engineer.")) \
        is False
    assert unanswered("What's my mum's name?", "Ann.", said("2 March 2026", "My mother Ann lives in Leeds.")) is False
    # a pet's name may be said without the word for it ("my dog" beside "a greyhound called Pepper")
    assert unanswered("What's my dog's name?", "Pepper.", said("1 March 2026", "We adopted a greyhound called Pepper.")) \
        is False


def test_a_measure_said_without_the_things_name_is_one_with_the_unit_asked():
    """Set S: "How far is my commute?" -> "The commute is about 12 km each way." was made "I don't know": no line says
    "commute"; the line "I cycle to work every day, about 12 km each way." gives the figure and a distance's unit."""
    cycle = said("20 February 2026", "I cycle to work every day, about 12 km each way.")
    assert unanswered("How far is my commute?", "The commute is about 12 km each way.", cycle) is False
    assert unanswered("How far is my commute?", "About 15 km.", cycle)  # not the figure said
    assert unanswered("How heavy is my bike?", "About 12 km.", cycle)  # not a weight
    greenhouse = said("1 March 2026", "I've started growing tomatoes in a greenhouse behind my flat in Sheffield.")
    assert unanswered("How far is my allotment?", "About 2 miles.", greenhouse)  # set P: never said
    assert unanswered("How big is my greenhouse?", "About 3 meters wide and 2 meters tall.", greenhouse)


def test_we_with_a_thing_a_line_of_the_users_speaks_of_asks_about_their_household():
    """Set S: "How much rent do we pay for the flat?" -> "about 2,000 SEK per month" (never said) was not read by the
    guards: "we" alone asks in general ("How much flour do we need?"), but "the flat" is the one the user moved into."""
    flat = said("19 March 2026", "Lars and I moved into a flat in Stockholm on 1 March, so I take the train to Uppsala now.")
    assert told_about("How much rent do we pay for the flat?", flat)
    assert not told_about("How much rent do we pay for the house?", flat)
    assert not told_about("How much flour do we need?", flat)
    assert not told_about("What time does the train leave?", flat)  # the user's thing, but no "we"
    assert unanswered("How much rent do we pay for the flat?", "The rent is about 2,000 SEK per month.", flat)


def test_a_when_answer_without_the_day_the_line_states_gets_the_line():
    """Set S: "When was Adam born?" -> "Just over a month ago, Adam was born." beside "Our son Adam was born on 11 May!";
    "When did Lars and I move to Stockholm?" -> "… in 19 March 2026" (the day it was said, not the day it was done)."""
    adam = said("20 May 2026", "Our son Adam was born on 11 May!") + "\n" + \
        said("2 March 2026", "My husband Karim and I are expecting our first baby in May.")
    told = "You told me on 20 May 2026: “Our son Adam was born on 11 May!”"
    assert undated_answer("When was Adam born?", "Just over a month ago, Adam was born.", adam) == told
    assert undated_answer("When was Adam born?", "Adam was born on 12 May.", adam) == told
    move = said("19 March 2026", "Lars and I moved into a flat in Stockholm on 1 March, so I take the train to Uppsala now.")
    assert undated_answer("When did Lars and I move to Stockholm?", "You moved in 19 March 2026.", move).startswith(
        "You told me on 19 March 2026: “Lars and I moved")
    assert undated_answer("When did Lars and I move to Stockholm?", "On 1 March 2026.", move) is None
    # a line that states only a month is met by any day of it
    trip = said("2 March 2026", "We went to Lisbon in May 2025.")
    assert undated_answer("When did we go to Lisbon?", "On 3 May 2025.", trip) is None
    assert undated_answer("When did we go to Lisbon?", "I don't know - you haven't told me that.", trip) == \
        "You told me on 2 March 2026: “We went to Lisbon in May 2025.”"  # two words shared overrule "I don't know"
    # a month the line names alone is its time, not the day it was said (set AM, held out: "When did I start my night
    # classes?" -> "On 20 April 2026.")
    classes = said("20 April 2026", "I started night classes in accounting in March.") + "\n" + \
        said("20 April 2026", "Tumelo gave up the violin and joined the football team instead.")
    assert undated_answer("When did I start my night classes?", "On 20 April 2026.", classes) == \
        "You told me on 20 April 2026: “I started night classes in accounting in March.”"
    assert undated_answer("When did I start my night classes?", "On 2 March 2026.", classes) is None
    assert times_said("I may go in May, and May I say so?") == {("", "may")}  # "May" as a month only after a word of time


def test_an_answer_from_the_other_clause_of_the_line_gets_the_clause_the_question_is_about():
    """Set S: "What instrument am I learning?" -> "Maja is the teacher you're learning with." beside "I've started
    learning the cello, and my teacher is called Maja." (APPROVEd by the model): sent back once with the clause."""
    from panda.pipeline.answer_lines import unrelated_line

    cello = said("19 March 2026", "I've started learning the cello, and my teacher is called Maja.")
    assert unrelated_line("What instrument am I learning?", "Maja is the teacher you're learning with.", cello) == \
        "I've started learning the cello"
    assert unrelated_line("What instrument am I learning?", "You're learning the cello.", cello) is None
    assert unrelated_line("Who is my cello teacher?", "Maja.", cello) is None
    sister = said("2 March 2026", "My sister Valeria lives in Córdoba and works as a dentist.")  # one clause
    assert unrelated_line("What does Valeria do for a living?", "She works as a dentist.", sister) is None


def test_an_i_dont_know_beside_a_name_given_after_who_someone_is_or_their_job_gets_that_line():
    """Set S: "What's my son's name?" -> "Not mentioned - you haven't told me your son's name." beside "Our son Adam was
    born on 11 May!" (FAILed by the validator); "What is Lars's job?" -> "I don't know" beside "My partner Lars is a sound
    engineer."."""
    from panda.pipeline.answer_checks import told_line

    adam = said("20 May 2026", "Our son Adam was born on 11 May!") + "\n" + \
        said("2 March 2026", "My husband Karim and I are expecting our first baby in May.")
    assert told_line("What's my son's name?", "Not mentioned - you haven't told me your son's name.", adam) == \
        "You told me on 20 May 2026: “Our son Adam was born on 11 May!”"
    assert told_line("What's my daughter's name?", "I don't know - you haven't told me that.", adam) is None
    lars = said("12 January 2026", "My partner Lars is a sound engineer.") + "\n" + \
        said("19 March 2026", "I've started learning the cello, and my teacher is called Maja.")
    told = "You told me on 12 January 2026: “My partner Lars is a sound engineer.”"
    assert told_line("What is Lars's job?", "I don't know - you haven't told me that.", lars) == told
    assert told_line("What does Lars do for a living?", "I don't know - you haven't told me that.", lars) == told
    assert told_line("What is Maja's job?", "I don't know - you haven't told me that.", lars) is None


def test_a_name_joined_to_the_thing_asked_must_be_said_whole():
    """Set S: "Which bank do I use?" -> "The bank I use is Surly Bank." beside "My Surly was stolen outside the station":
    "Surly" is said, "Surly Bank" never was."""
    surly = said("28 April 2026", "My Surly was stolen outside the station on 19 April, so I'm taking the metro for now.")
    assert unanswered("Which bank do I use?", "The bank I use is Surly Bank.", surly)
    nurse = said("10 January 2026", "I work night shifts as a nurse at St Luke's hospital.")
    assert unanswered("Which hospital do I work at?", "You work at St Luke's.", nurse) is False
    assert unanswered("Which hospital do I work at?", "You work at St Luke’s Hospital.", nurse) is False
    cafe = said("9 January 2026", "I run a small café called Forno Blu in Bologna.")
    assert unanswered("What's my café called?", "Your café is The Forno Blu.", cafe) is False
    assert unanswered("What's my café called?", "It's Forno Blu Bakery.", cafe)


def test_set_t_a_price_a_place_a_job_and_what_was_given_up():
    """Set T, held out: "How much did the motorbike cost?" -> "40,000 rupees" (the savings, no price); "What's the name
    of the games studio?" -> "The games studio is in Galway." (where it is); "What does Priyanka do?" -> "I don't know
    her exact occupation." beside "… works night shifts as an ICU nurse."; "What class am I taking now?" -> the change
    line whole, the pottery class it gave up with it."""
    from panda.pipeline.answer_changes import superseded_unsaid
    from panda.pipeline.answer_checks import told_line

    bike = said("15 January 2026", "I'm saving up for a motorbike, and I've got 40,000 rupees so far.") + "\n" + \
        said("20 March 2026", "I bought the motorbike, a Royal Enfield Classic 350, on 12 March.")
    assert unanswered("How much did the motorbike cost?", "The motorcycle cost 40,000 rupees.", bike)
    assert unanswered("How much have I saved?", "40,000 rupees.", bike) is False
    priced = bike + "\n" + said("20 March 2026", "I bought it for 190,000 rupees.")
    assert unanswered("How much did the motorbike cost?", "It cost 190,000 rupees.", priced) is False
    gym = said("1 May 2026", "My gym membership costs £30 a month.")
    assert unanswered("How much do I pay for the gym?", "£30 a month.", gym) is False

    studio = said("8 January 2026", "I'm a software tester at a games studio in Galway.")
    assert unanswered("What's the name of the games studio?", "The games studio is in Galway.", studio)
    assert unanswered("Which city is my studio in?", "Galway.", studio) is False  # a place asked
    named = said("8 January 2026", "I'm a software tester at a games studio in Galway called Pixel Bog.")
    assert unanswered("What's the name of the games studio?", "It's Pixel Bog.", named) is False

    nurse = said("15 January 2026", "My wife Priyanka works night shifts as an ICU nurse.")
    assert told_line("What does Priyanka do?", "But I don't know her exact occupation.", nurse) == \
        "You told me on 15 January 2026: “My wife Priyanka works night shifts as an ICU nurse.”"
    assert told_line("What does Maja do?", "I don't know.", nurse) is None

    assert superseded_unsaid("What class am I taking now?", "I stopped the pottery class after four weeks; I'm doing "
                             "ikebana on Thursday evenings instead.") == "I'm doing ikebana on Thursday evenings instead."
    assert superseded_unsaid("Where do I work now?", "You quit Menya Kaze and opened your own izakaya, Tsuki.") == \
        "You opened your own izakaya, Tsuki."
    assert superseded_unsaid("What class did I stop?", "I stopped the pottery class; I'm doing ikebana.") is None
    assert superseded_unsaid("Where do I work now?", "You left the bank.") is None  # nothing new follows
    # set AF, held out: what had to be cancelled goes too
    assert superseded_unsaid("Where are we going on our trip?", "We had to cancel Zanzibar, so we're going to Lamu "
                             "instead.") == "We're going to Lamu instead."


def test_set_t_rerun_a_relation_however_said_a_thing_of_the_users_and_an_answer_echoing_the_question():
    """Set T, re-run: "What does my fiancée do?" -> "No information provided …" beside "My girlfriend Aoife is a primary
    school teacher."; "What class am I taking now?" -> "I teach English at a language school in Kyoto now." (the
    question's "now" is no word of the answer's own); "How much did the motorbike cost?" was read by no guard."""
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_lines import unrelated_line
    from panda.pipeline.asked_about import their_thing

    aoife = said("8 January 2026", "My girlfriend Aoife is a primary school teacher.")
    assert told_line("What does my fiancée do?", "No information provided.", aoife) == \
        "You told me on 8 January 2026: “My girlfriend Aoife is a primary school teacher.”"
    assert told_line("What does my mum do?", "No information provided.", aoife) is None
    classes = said("22 April 2026", "I stopped the pottery class after four weeks; I'm doing ikebana on Thursday "
                   "evenings instead.") + "\n" + said("10 February 2026", "I teach English at a language school in Kyoto.")
    assert unrelated_line("What class am I taking now?", "I teach English at a language school in Kyoto now.",
                          classes).startswith("I stopped the pottery class")
    bike = said("20 March 2026", "I bought the motorbike, a Royal Enfield Classic 350, on 12 March.")
    assert their_thing("How much did the motorbike cost?", bike)
    assert not their_thing("What time does the train leave?", bike)


def test_a_clock_time_answers_what_time():
    """Set T, re-run: "What time do I go to the gym?" -> "Not in the information provided.", made "I don't know"
    beside "I go to the gym at 6 am before work."."""
    from panda.pipeline.answer_checks import told_line

    gym = said("15 January 2026", "I go to the gym at 6 am before work.")
    assert told_line("What time do I go to the gym?", "I don't know - you haven't told me that.", gym) == \
        "You told me on 15 January 2026: “I go to the gym at 6 am before work.”"
    assert told_line("What time do I go to the pool?", "I don't know.", gym) is None
    assert told_line("What time do I go to the gym?", "I don't know.", said("15 January 2026", "I go to the gym.")) is None


def test_set_s_third_run_a_date_or_a_weight_is_no_count_and_a_birth_answers_an_age():
    """Set S, third re-run: "How much did Adam weigh at birth?" -> "Our son Adam was born on May 11th." (the day's 11
    was read as an amount said); "How old is Yui?" -> "But I can't remember Yui's current age." (made "I don't know")
    beside "My daughter Yui turned six in January."."""
    from panda.pipeline.answer_checks import told_line

    adam = said("20 May 2026", "Our son Adam was born on 11 May!")
    assert unanswered("How much did Adam weigh at birth?", "Our son Adam was born on May 11th.", adam)
    assert unanswered("How much did Adam weigh at birth?", "3.4 kg.", adam)  # a measure, never said
    weighed = said("20 May 2026", "Adam weighed 3.4 kg at birth.")
    assert unanswered("How much did Adam weigh at birth?", "He weighed 3.4 kg.", weighed) is False
    cafe = said("30 March 2026", "We've doubled the seating at Forno Blu, from 12 tables to 24.")
    assert unanswered("How many tables does the café have now?", "24 tables.", cafe) is False
    yui = said("3 February 2026", "My daughter Yui turned six in January.")
    assert told_line("How old is Yui?", "I don't know - you haven't told me that.", yui) == \
        "You told me on 3 February 2026: “My daughter Yui turned six in January.”"
    assert told_line("How old is Kenji?", "I don't know - you haven't told me that.", yui) is None


def test_set_u_since_when_a_day_is_no_age_and_a_salary_is_an_amount():
    """Set U, held out: "Since when have I been flying long-haul?" -> "… since January 2026." (the first session's month)
    beside "Since 1 April I've been flying long-haul on the Boeing 787."; "How old is Eirik?" -> "Eirik is 11 years
    old." (the 11 of "… on 11 April"); "What salary does the postdoc pay?" -> "The postdoc pays a salary based on the job
    and location." (nothing was said of a salary)."""
    flying = said("5 April 2026", "Since 1 April I've been flying long-haul on the Boeing 787.") + "\n" + \
        said("30 January 2026", "I'm a pilot; I fly Airbus A320s out of Amman.")
    assert undated_answer("Since when have I been flying long-haul?", "You have been flying long-haul since January 2026.",
                          flying) == "You told me on 5 April 2026: “Since 1 April I've been flying long-haul on the Boeing 787.”"
    assert undated_answer("Since when have I been flying long-haul?", "Since 1 April 2026.", flying) is None
    eirik = said("20 April 2026", "Eirik beat me at chess for the first time on 11 April!")
    assert unanswered("How old is Eirik?", "Eirik is 11 years old.", eirik)
    assert unanswered("How old is Eirik?", "Eirik is 11 years old.", said("2 May 2026", "Eirik turned 11 in March.")) is False
    # an age worked out from a birth year, past ten, is no figure the line says
    assert unanswered("How old is Eirik?", "He is 12.", said("2 May 2026", "Eirik was born in 2014.")) is False
    postdoc = said("30 March 2026", "I've accepted a postdoc in Leeds, starting in September.")
    assert unanswered("What salary does the postdoc pay?", "The postdoc pays a salary based on the job and location.", postdoc)
    paid = said("30 March 2026", "The postdoc in Leeds pays a salary of £38,000.")
    assert unanswered("What salary does the postdoc pay?", "£38,000 a year.", paid) is False


def test_set_u_a_request_is_no_statement_of_the_users():
    """Set U, held out: "Recommend a dish I could cook for my crew." stood in later contexts as "the user said", and the
    1.5B model answered "What's the name of my airline?" with "You could cook a fish and chips for your crew."."""
    from panda.language.text import is_question

    assert is_question("Recommend a dish I could cook for my crew.")
    assert is_question("Give me an idea for a snack I could take on a long walk.")
    assert is_question("Suggest a film for tonight")
    assert not is_question("I recommend the blue one to everyone.")
    assert not is_question("Giving up sugar was hard.")


def test_set_u_the_older_value_offered_as_an_alternative_goes_from_an_answer_about_now():
    """Set U, held out: "Which plane am I flying these days?" -> "You are flying on a Boeing 787 or an Airbus A320 from
    Amman." beside the January line on the A320 and the April line on the 787."""
    from panda.pipeline.answer_changes import older_alternative_dropped

    planes = said("5 April 2026", "Since 1 April I've been flying long-haul on the Boeing 787.") + "\n" + \
        said("30 January 2026", "I'm a pilot; I fly Airbus A320s out of Amman.")
    asked = "Which plane am I flying these days?"
    assert older_alternative_dropped(asked, "You are flying on a Boeing 787 or an Airbus A320 from Amman.", planes) == \
        "You are flying on a Boeing 787."
    assert older_alternative_dropped(asked, "You fly an Airbus A320 or a Boeing 787.", planes) == "You fly a Boeing 787."
    assert older_alternative_dropped(asked, "You fly a Boeing 787.", planes) is None
    # a question about then, or two values said the same day, keep both
    assert older_alternative_dropped("Which plane did I fly in January?", "An Airbus A320 or a Boeing 787.", planes) is None
    same_day = said("5 April 2026", "I fly the Boeing 787 and sometimes the Airbus A350.")
    assert older_alternative_dropped(asked, "The Boeing 787 or the Airbus A350.", same_day) is None


def test_a_where_question_of_one_word_gets_the_line_naming_a_place():
    """Set T (not mended then): "Where do I go sailing?" -> a bad answer, made "I don't know", beside "I sail a small
    dinghy, a Laser, on Lough Corrib most weekends.": one meaningful word, where told_line needs two. A where-question
    needs a line naming a place besides."""
    from panda.pipeline.answer_checks import told_line

    sailing = said("8 January 2026", "I sail a small dinghy, a Laser, on Lough Corrib most weekends.")
    assert told_line("Where do I go sailing?", "I don't know - you haven't told me that.", sailing) == \
        "You told me on 8 January 2026: “I sail a small dinghy, a Laser, on Lough Corrib most weekends.”"
    assert told_line("Where do I go sailing?", "I don't know.", said("8 January 2026", "I sail most weekends.")) is None
    assert told_line("Where do I go sailing?", "I don't know.", sailing + "\n" + said("9 January 2026", "I sail with Lars.")) \
        .endswith("on Lough Corrib most weekends.”")  # the line naming a place
    assert told_line("Who do I sail with?", "I don't know.", sailing) is None  # one word, not where: a name asked


def test_set_u_rerun_a_swap_says_the_new_value_and_a_where_answer_comes_from_the_things_line():
    """Set U, re-run: "Remind me, what car do I drive now?" -> "It's currently the electric Renault Zoe, as you swapped
    your old Fiat for one on 9 March 2026." (the stale Fiat); "Where is my postdoc going to be?" -> "I am doing a PhD in
    chemistry at the University of Manchester, starting in September." beside "I've accepted a postdoc in Leeds …"."""
    from panda.pipeline.answer_changes import superseded_unsaid

    car = "Remind me, what car do I drive now?"
    assert superseded_unsaid(car, "It's currently the electric Renault Zoe, as you swapped your old Fiat for one on 9 "
                                  "March 2026.") == "It's currently the electric Renault Zoe."
    assert superseded_unsaid(car, "You swapped your old Fiat for an electric Renault Zoe.") == \
        "You switched to an electric Renault Zoe."
    assert superseded_unsaid("What did I swap my Fiat for?", "You swapped your old Fiat for a Renault Zoe.") is None
    postdoc = said("30 March 2026", "I've accepted a postdoc in Leeds, starting in September.") + "\n" + \
        said("25 January 2026", "I'm doing a PhD in chemistry at the University of Manchester.")
    where = "Where is my postdoc going to be?"
    assert unanswered(where, "I am doing a PhD in chemistry at the University of Manchester, starting in September.", postdoc)
    assert unanswered(where, "The postdoc is in Leeds, starting in September.", postdoc) is False
    assert unanswered("Where did I do my PhD?", "At the University of Manchester.", postdoc) is False


def test_set_v_the_old_value_of_a_change_alone_gets_the_line_with_the_new():
    """Set V, held out: "What do I do in the evenings these days?" -> "You do yoga twice a week …", beside the only line
    about it, "I've swapped my evening yoga class for climbing twice a week."."""
    from panda.pipeline.answer_changes import stale_value_said

    swapped = said("10 April 2026", "I've swapped my evening yoga class for climbing twice a week.")
    asked = "What do I do in the evenings these days?"
    assert stale_value_said(asked, "You do yoga twice a week and talk to your son Yassin.", swapped) == \
        "You told me on 10 April 2026 that you've switched to climbing twice a week."
    assert stale_value_said(asked, "You go climbing twice a week.", swapped) is None
    assert stale_value_said("What did I do in the evenings before April?", "Yoga.", swapped) is None  # not about now
    lessons = said("1 May 2026", "I've switched my lessons from cello to viola.")
    assert stale_value_said("What lessons am I taking now?", "Cello lessons.", lessons) == \
        "You told me on 1 May 2026 that you've switched your lessons to viola."
    drove = said("1 May 2026", "I drove from Leeds to York for the match.")  # a trip is no change
    assert stale_value_said("Where do I drive now?", "You drive in Leeds.", drove) is None


def test_set_v_a_name_is_not_where_the_thing_is_nor_an_address_a_place_without_its_number():
    """Set V, held out: "What's the name of the café I work at?" -> "The café is at Porta Nuova in Turin." (the café is
    near Porta Nuova); "What is the cabin's address?" -> "… the summer house on Gotland …"."""
    cafe = said("18 January 2026", "I work as a barista at a café near Porta Nuova in Turin.")
    assert unanswered("What's the name of the café I work at?", "The café is at Porta Nuova in Turin.", cafe)
    named = cafe + "\n" + said("3 May 2026", "The café is called Caffè Lux.")
    assert unanswered("What's the name of the café I work at?", "It is called Caffè Lux.", named) is False
    cabin = said("29 March 2026", "We sold the summer house on Gotland and bought a small cabin in Dalarna instead.")
    assert unanswered("What is the cabin's address?", "The cabin's address is the summer house on Gotland.", cabin)
    street = cabin + "\n" + said("3 May 2026", "The cabin is at 4 Fjällvägen in Sälen.")
    assert unanswered("What is the cabin's address?", "It is at 4 Fjällvägen.", street) is False


def test_set_v_one_word_of_what_is_done_gets_the_one_line_that_says_it():
    """Set V, re-run: "What do I do in the evenings these days?" -> "I don't know" beside "I've swapped my evening yoga
    class for climbing twice a week." ("these days" is no word of what is asked; "What do I do …" asks no job here);
    "Which city did I move from?" beside "I moved from Casablanca to Lyon in 2023 …" (a place named is a city said)."""
    from panda.pipeline.answer_checks import told_line

    lines = said("10 April 2026", "I've swapped my evening yoga class for climbing twice a week.") + "\n" + \
        said("10 April 2026", "Yassin started daycare on 7 April.") + "\n" + \
        said("6 February 2026", "I moved from Casablanca to Lyon in 2023 for a job in cybersecurity.")
    unknown = "I don't know - you haven't told me that."
    assert told_line("What do I do in the evenings these days?", unknown, lines).endswith("for climbing twice a week.”")
    # said back for now, the yoga given up goes
    from panda.pipeline.answer_changes import told_now

    assert told_now("What do I do in the evenings these days?", told_line("What do I do in the evenings these days?",
                                                                         unknown, lines)) == \
        "You told me on 10 April 2026 that you've switched to climbing twice a week."
    assert told_now("Which city did I move from?", told_line("Which city did I move from?", unknown, lines)) is None
    assert told_line("Which city did I move from?", unknown, lines).endswith("for a job in cybersecurity.”")
    twice = lines + "\n" + said("11 April 2026", "My evening shifts start at six.")
    assert told_line("What do I do in the evenings these days?", unknown, twice) is None  # two lines say it
    assert told_line("What's my evening called?", unknown, lines) is None  # a name asked needs two words


def test_set_w_an_answers_own_dates_are_no_age_and_a_name_ties_a_change_to_the_answer():
    """Set W, held out: "How old is my daughter?" -> "… she is now five years old from 16 January 2026." was made "I
    don't know" (16 and 2026 read as ages); "How am I learning French these days?" -> "… through Duolingo now.",
    beside "I switched from Duolingo to evening classes at the Alliance Française." (no word of the question's)."""
    from panda.pipeline.answer_changes import stale_value_said

    five = said("16 January 2026", "My daughter Catalina is five.")
    assert unanswered("How old is my daughter?", "She is now five years old from 16 January 2026.", five) is False
    assert unanswered("How old is my daughter?", "She is six.", five)
    french = said("15 April 2026", "I switched from Duolingo to evening classes at the Alliance Française.")
    assert stale_value_said("How am I learning French these days?", "You are learning French through Duolingo now.",
                            french) == ("You told me on 15 April 2026 that you switched to evening classes at the "
                                        "Alliance Française.")


def test_set_w_rerun_a_birthday_from_a_line_about_a_birth_an_age_said_and_no_idea():
    """Set W, re-run: "When is Pamuk's birthday?" -> "Pamuk's birthday is on 2 March 2026." (the day the dog was
    adopted); "How old is my daughter?" -> "The daughter is 16 years old.", made "I don't know", beside "My daughter
    Catalina is five."; "What does Emre teach?" -> "No idea - I only know about …" beside the line saying it."""
    from panda.language.metrics import abstained
    from panda.pipeline.answer_checks import told_line

    pamuk = said("19 March 2026", "We adopted a rescue greyhound called Pamuk on 2 March.")
    assert unanswered("When is Pamuk's birthday?", "Pamuk's birthday is on 2 March 2026.", pamuk)
    dad = said("11 January 2026", "My dad turns seventy on 3 May.")
    assert unanswered("When is my dad's seventieth birthday?", "It's on 3 May.", dad) is False
    assert unanswered("When is my dad's seventieth birthday?", "It's on 11 January.", dad)
    five = said("16 January 2026", "My daughter Catalina is five.")
    assert told_line("How old is my daughter?", "I don't know - you haven't told me that.", five) == \
        "You told me on 16 January 2026: “My daughter Catalina is five.”"
    assert told_line("How old is my daughter?", "I don't know.", said("1 May 2026", "My daughter is 5 km away.")) is None
    assert abstained("No idea - I only know about Emre's dentist practice.")
    emre = said("14 January 2026", "My husband Emre teaches history at a high school.")
    assert told_line("What does Emre teach?", "No idea - I only know about Emre's dentist practice.", emre) == \
        "You told me on 14 January 2026: “My husband Emre teaches history at a high school.”"


def test_set_x_a_count_of_my_things_and_a_count_in_a_unit():
    """Set X, held out: "How many of my athletes qualified for nationals?" -> "There are two athletes …" was made "I
    don't know" ("of" was read as the thing counted); "How many kilometres a week do I run now?" -> "I don't know" (no
    line says "kilometres": they say "km")."""
    athletes = said("6 April 2026", "Two of my athletes qualified for the national championships on 29 March.")
    assert unanswered("How many of my athletes qualified for nationals?", "There are two athletes qualified for "
                      "nationals on 29 March.", athletes) is False
    assert unanswered("How many of my athletes qualified for nationals?", "Three of them.", athletes) is False  # small
    km = said("6 April 2026", "I've cut back to 40 km a week because of a sore knee.")
    assert unanswered("How many kilometres a week do I run now?", "You run 40 km a week.", km) is False
    assert unanswered("How many kilometres a week do I run now?", "You run 45 km a week.", km)
    assert unanswered("How many miles do I run?", "You run 40 miles.", km)  # a figure in another unit


def test_set_x_names_asked_in_the_plural_need_names_a_line_says():
    """Set X, held out: "What are my athletes' names?" -> "Two of your athletes are named Ken and Peter." (never said;
    "names" was no name asked, and "Two" counted as a name the line says)."""
    athletes = said("6 April 2026", "Two of my athletes qualified for the national championships on 29 March.")
    assert unanswered("What are my athletes' names?", "Two of your athletes are named Ken and Peter.", athletes)
    named = athletes + "\n" + said("7 April 2026", "The two are Wanjiru and Otieno.")
    assert unanswered("What are my athletes' names?", "Wanjiru and Otieno.", named) is False


def test_set_x_rerun_a_move_says_where_one_lived_and_no_recent_information_abstains():
    """Set X, re-run: "Where did I live before Toronto?" -> "It's not clear …" beside "I moved to Toronto from Accra two
    years ago."; "No recent information on running mileage." was read as an answer."""
    from panda.language.metrics import abstained
    from panda.pipeline.answer_checks import told_line

    moved = said("4 February 2026", "I moved to Toronto from Accra two years ago.")
    assert told_line("Where did I live before Toronto?", "It's not clear where you lived before Toronto.", moved) == \
        "You told me on 4 February 2026: “I moved to Toronto from Accra two years ago.”"
    assert told_line("Where did I live before Toronto?", "I don't know.", said("4 May 2026", "I love Toronto.")) is None
    assert abstained("No recent information on running mileage.")


def test_set_y_an_age_said_before_and_a_place_is_no_name_of_the_thing_and_a_one_word_when():
    """Set Y, held out: "How old is Anika?" -> "No information provided about Anika's age." beside "My daughter Anika is
    seven and obsessed with chess." (the age pattern stopped at "and"); "What's the bakery called?" -> "The bakery is
    called Croix-Rousse." (where it is, asked as "the bakery"); "When is my triathlon?" -> "… I don't know when your
    triathlon is." beside the one line saying the triathlon and a day."""
    from panda.pipeline.answer_checks import told_line

    anika = said("20 January 2026", "My daughter Anika is seven and obsessed with chess.")
    assert told_line("How old is Anika?", "No information provided about Anika's age.", anika) == \
        "You told me on 20 January 2026: “My daughter Anika is seven and obsessed with chess.”"
    distance = said("20 January 2026", "My commute to Anika's school is 5 km each way.")
    assert told_line("How old is Anika?", "I don't know.", distance) is None  # "is 5 km" is no age
    bakery = said("22 April 2026", "I left the hotel and opened my own bakery in Croix-Rousse with my sister Margaux.")
    assert unanswered("What's the bakery called?", "The bakery is called Croix-Rousse.", bakery)
    named = said("22 April 2026", "I opened my own bakery in Croix-Rousse, called Levain.")
    assert unanswered("What's the bakery called?", "It's called Levain.", named) is False
    moved = said("22 April 2026", "The triathlon got moved from June to 6 September because of flooding.")
    veg = said("14 February 2026", "I'm vegetarian, have been since I was a teenager.")
    unknown = "You are a vegetarian and are a pastry chef, but I don't know when your triathlon is."
    assert undated_answer("When is my triathlon?", unknown, veg + "\n" + moved) == \
        "You told me on 22 April 2026: “The triathlon got moved from June to 6 September because of flooding.”"
    trained = said("14 February 2026", "I'm training for my first triathlon, a sprint in Annecy on 6 June.")
    assert undated_answer("When is my triathlon?", unknown, trained + "\n" + moved) is None  # two lines say it
    assert undated_answer("When is my triathlon?", unknown, said("14 February 2026", "I love a triathlon.")) is None


def test_set_y_rerun_what_someone_does_is_read_from_the_lines_naming_them_and_a_things_name_is_no_persons():
    """Set Y, re-run: "What does Radu do?" -> "The user is a nurse on the cardiology ward in Cluj." (the user's own
    job); "What's the bakery called?" was answered with the line "… opened my own bakery in Croix-Rousse with my sister
    Margaux." (a person's name taken for the bakery's)."""
    from panda.pipeline.answer_checks import told_line

    lines = "\n".join(["- job: nurse (told 5 January 2026)",
                       said("5 January 2026", "I'm a nurse on the cardiology ward at a hospital in Cluj."),
                       said("5 January 2026", "My husband Radu is a firefighter.")])
    assert unanswered("What does Radu do?", "The user is a nurse on the cardiology ward in Cluj.", lines)
    assert unanswered("What does Radu do?", "Radu is a firefighter.", lines) is False
    assert unanswered("What do I do?", "You're a nurse on the cardiology ward.", lines) is False
    bakery = said("22 April 2026", "I left the hotel and opened my own bakery in Croix-Rousse with my sister Margaux.")
    assert told_line("What's the bakery called?", "I don't know.", bakery) is None
    assert told_line("What's my sister called?", "I don't know.", bakery) == \
        "You told me on 22 April 2026: “I left the hotel and opened my own bakery in Croix-Rousse with my sister Margaux.”"


def test_set_z_people_counted_as_of_us_and_a_name_owned_by_someone_named_from_their_line():
    """Set Z, held out: "How many people work at my practice?" -> "There are five people working …" was made "I don't
    know" beside "… so there are five of us at the practice now." (no line said "people"); "What's my landlord's name?"
    -> "As a software developer in Porto Alegre, I rent a small flat in Cidade Baixa …" (places taken for his name)."""
    five = said("25 March 2026", "I hired a second hygienist, so there are five of us at the practice now.")
    assert unanswered("How many people work at my practice?", "There are five people working at your practice.", five) \
        is False
    assert unanswered("How many people work at my practice?", "There are five people.", said("1 May 2026", "I have five cats.")) \
        is True
    rent = "\n".join([said("14 April 2026", "My landlord raised the rent to 2,400 reais from May, which is annoying."),
                      said("3 February 2026", "I rent a small flat in Cidade Baixa for 2,100 reais a month.")])
    assert unanswered("What's my landlord's name?", "As a developer in Porto Alegre, I rent a flat in Cidade Baixa.", rent)
    named = rent + "\n" + said("15 April 2026", "My landlord Senhor Almeida won't budge on it.")
    assert unanswered("What's my landlord's name?", "Your landlord is Senhor Almeida.", named) is False
    pepper = said("3 February 2026", "We adopted a greyhound called Pepper.")
    assert unanswered("What's my dog's name?", "Pepper.", pepper) is False  # a line naming something outright


def test_set_z_rerun_a_title_asked_is_a_name_a_line_says_and_a_job_title_is_not():
    """Set Z, re-runs: "What was my thesis title?" -> "The thesis title is epidemiology." and "… 'Epidemiology for Public
    Health'." (never said)."""
    phd = said("8 February 2026", "I'm doing a PhD in epidemiology at the University of Manchester.")
    assert unanswered("What was my thesis title?", "The thesis title is epidemiology.", phd)
    assert unanswered("What was my thesis title?", "It was 'Epidemiology for Public Health'.", phd)
    titled = said("9 April 2026", "My thesis is titled Mosquitoes and Maps.")
    assert unanswered("What was my thesis title?", "Your thesis is titled Mosquitoes and Maps.", titled) is False
    nurse = said("8 February 2026", "I work as a senior nurse.")
    assert unanswered("What is my job title?", "You are a senior nurse.", nurse) is False


def test_set_aa_a_move_says_where_one_lives_and_who_did_what_a_line_says_is_the_users_to_answer():
    """Set AA, held out: "Which part of Hamburg do we live in now?" -> "We live in Eimsbüttel now." was sent back as
    said from the wrong line (beside "We moved from Altona to a bigger flat in Eimsbüttel."); "Who is opening a
    bookshop?" -> "The bookshop is opening in May." went unguarded (no "I" or "my" in it)."""
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_lines import unrelated_line
    from panda.pipeline.asked_about import told_about

    lines = "\n".join([said("17 March 2026", "We moved from Altona to a bigger flat in Eimsbüttel."),
                       said("9 January 2026", "I work as a structural engineer at a firm in Hamburg.")])
    assert unrelated_line("Which part of Hamburg do we live in now?", "We live in Eimsbüttel now.", lines) is None
    shop = said("11 February 2026", "My best friend Ragnhild is opening a bookshop in May.")
    assert told_about("Who is opening a bookshop?", shop)
    assert not told_about("Who is opening a bakery?", shop)
    assert unanswered("Who is opening a bookshop?", "The bookshop is opening in May.", shop)
    assert told_line("Who is opening a bookshop?", "I don't know.", shop) == \
        "You told me on 11 February 2026: “My best friend Ragnhild is opening a bookshop in May.”"


def test_what_happened_to_something_is_told_by_the_latest_line_about_it():
    """Sets Y, AA and AB, held out: "What happened to the hive I lost?" -> "I lost one hive and have two hives now.";
    "What happened to Captain?" -> "The parrot named Captain is a friend of the user's."; "What happened to Diego?" ->
    "It's Frida now." - each beside the line that tells it."""
    from panda.pipeline.answer_lines import happened_line

    cats = "\n".join([said("16 January 2026", "I've got two cats, Frida and Diego."),
                      said("22 March 2026", "Diego got out and was hit by a car, so it's just Frida now.")])
    assert happened_line("What happened to Diego?", "It's Frida now.", cats) == \
        "You told me on 22 March 2026: “Diego got out and was hit by a car, so it's just Frida now.”"
    assert happened_line("What happened to Diego?", "Diego got out and was hit by a car.", cats) is None
    hives = "\n".join([said("10 April 2026", "A storm knocked over one of the hives and the colony didn't survive, so "
                            "I'm down to two."), said("2 February 2026", "I keep bees on my roof, three hives at the moment.")])
    assert happened_line("What happened to the hive I lost?", "I lost one hive and have two hives now.", hives) == \
        "You told me on 10 April 2026: “A storm knocked over one of the hives and the colony didn't survive, so I'm " \
        "down to two.”"
    assert happened_line("What happened to Captain?", "I don't know.", hives) is None  # no line about Captain
    assert happened_line("What did I do on Sunday?", "You went swimming.", hives) is None


def test_set_ab_how_many_asks_no_word_many():
    """Set AB, held out: "How many mornings a week is Meera at nursery?" -> "We don't know …" beside "Meera has started
    nursery three mornings a week." (the line did not say "many")."""
    from panda.pipeline.answer_checks import told_line

    nursery = said("16 April 2026", "Meera has started nursery three mornings a week.")
    assert told_line("How many mornings a week is Meera at nursery?", "We don't know - you haven't told me.", nursery) == \
        "You told me on 16 April 2026: “Meera has started nursery three mornings a week.”"


def test_set_ab_rerun_a_commute_is_going_to_work_and_one_left_by_name_is_one():
    """Set AB, re-run: "How far is my commute?" -> "I don't know" beside "I cycle to work, it's about 8 km each way.";
    "How many cats do I have?" -> "There is only one cat." was made "I don't know" beside "Diego got out and was hit by
    a car, so it's just Frida now." (no line left said "cats")."""
    from panda.pipeline.answer_checks import told_line

    cycle = said("5 February 2026", "I cycle to work, it's about 8 km each way.")
    assert told_line("How far is my commute?", "I don't know - you haven't told me that.", cycle) == \
        "You told me on 5 February 2026: “I cycle to work, it's about 8 km each way.”"
    assert told_line("How far is my commute?", "I don't know.", said("5 February 2026", "I cycle 8 km on Sundays.")) \
        is None
    frida = said("22 March 2026", "Diego got out and was hit by a car, so it's just Frida now.")
    assert unanswered("How many cats do I have?", "There is only one cat.", frida) is False
    assert unanswered("How many cats do I have?", "You have two cats.", frida)
    assert unanswered("How many dogs do I have?", "One dog.", said("1 May 2026", "I love jazz."))


def test_a_place_or_body_asked_is_told_by_a_name_or_by_the_description_a_line_gives_it():
    """Set AC, held out: "Which insurance company do I work for?" -> "I'm a data analyst at an insurance company in
    Toronto." (the company is never named: "Toronto" is where it is), and "What team did Lwazi get into?" -> "Lwazi made
    the provincial chess team last month." was turned into "I don't know" (no name, but the team the line tells)."""
    insurer = "- On 31 January 2026 the user said: “I'm a data analyst at an insurance company in Toronto.”"
    assert unanswered("Which insurance company do I work for?", "I'm a data analyst at an insurance company in Toronto.",
                      insurer)
    joined = insurer + "\n- On 2 May 2026 the user said: “I've joined Manulife as a senior analyst.”"
    assert unanswered("Which insurance company do I work for?", "You work for Manulife.", joined) is False
    team = "- On 11 April 2026 the user said: “Lwazi made the provincial chess team last month!”"
    assert unanswered("What team did Lwazi get into?", "Lwazi made the provincial chess team last month.", team) is False
    assert unanswered("What team did Lwazi get into?", "Lwazi is in the regional football team.", team)  # not said
    assert unanswered("Which school do I teach at?", "You teach at a primary school in Durban.",
                      "- On 7 February 2026 the user said: “I teach Grade 4 at a primary school in Durban.”")


def test_an_answer_taking_what_was_left_from_the_line_that_says_so_gets_the_new_part_of_that_line():
    """Set AC, held out: "Where do I work now?" -> "You work at the restaurant now." beside "I handed in my notice at the
    restaurant and opened my own little wine bar in San Salvario." (no other line says "restaurant")."""
    from panda.pipeline.answer_changes import stale_value_said

    lines = ("- job: sommelier (told 10 January 2026)\n"
             "- On 14 March 2026 the user said: “I handed in my notice at the restaurant and opened my own little wine "
             "bar in San Salvario.”")
    assert stale_value_said("Where do I work now?", "You work at the restaurant now.", lines) == \
        "You told me on 14 March 2026 that you opened your own little wine bar in San Salvario."
    assert stale_value_said("Where do I work now?", "You run a wine bar in San Salvario.", lines) is None
    assert stale_value_said("Where did I work before?", "At the restaurant.", lines) is None  # of then
    # another line saying the word: not taken from the ending alone, and the question shares no word with the change
    both = lines + "\n- On 2 April 2026 the user said: “The restaurant across the road has great pasta.”"
    assert stale_value_said("Where do I work now?", "You work at the restaurant now.", both) is None


def test_a_users_line_said_back_in_their_own_voice_is_turned_to_theirs():
    """Set AC, held out: "What am I learning to bake?" -> "I'm learning to bake Persian pastries from my grandmother's
    recipes." (scored right, said as the user)."""
    from panda.pipeline.answer_lines import in_second_person

    pastries = "- On 31 January 2026 the user said: “I'm learning to bake Persian pastries from my grandmother's recipes.”"
    assert in_second_person("What am I learning to bake?", "I'm learning to bake Persian pastries from my grandmother's "
                            "recipes.", pastries) == "You're learning to bake Persian pastries from your grandmother's recipes."
    knee = "- On 10 March 2026 the user said: “I hurt my knee, so I've dropped down to the half marathon instead.”"
    assert in_second_person("Which race am I training for?", "You hurt your knee, so I've dropped down to the half "
                            "marathon instead.", knee) == "You hurt your knee, so you've dropped down to the half marathon instead."
    assert in_second_person("Which race am I training for?", "I think it's the Gold Coast marathon.", knee) is None
    assert in_second_person("Which race am I training for?", "I don't know - you haven't told me that.", knee) is None
    assert in_second_person("What am I learning to bake?", "You're learning to bake pastries.", pastries) is None


def test_where_a_place_or_body_is_is_not_its_name_with_words_between():
    """Set AD, held out: "Which school do I teach at?" -> "You teach at Kumasi." beside "I'm a secondary school maths
    teacher in Kumasi." (the school's town, two words after it)."""
    kumasi = "- On 13 January 2026 the user said: “I'm a secondary school maths teacher in Kumasi.”"
    assert unanswered("Which school do I teach at?", "You teach at Kumasi.", kumasi)
    named = "- On 13 January 2026 the user said: “I teach maths at Prempeh College in Kumasi.”"
    assert unanswered("Which school do I teach at?", "You teach at Prempeh College.", named) is False


def test_still_answered_yes_beside_a_latest_line_that_ends_it_is_no():
    """Set AF, held out: "Do I still have a boat?" -> "You still have a boat.", beside "I sold the boat in March, I wasn't
    using it enough." (the only line about the boat)."""
    from panda.pipeline.answer_changes import still_ended

    sold = ("- On 25 March 2026 the user said: “Lana passed her second-year exams with top marks.”\n"
            "- On 25 March 2026 the user said: “I sold the boat in March, I wasn't using it enough.”")
    assert still_ended("Do I still have a boat?", "You still have a boat.", sold) == (
        "No - you told me on 25 March 2026 that you sold the boat in March, you weren't using it enough.")
    assert still_ended("Do I still have a boat?", "No, you sold it in March.", sold) is None  # denied already
    assert still_ended("Is Lana still studying?", "Yes, she is.", sold) is None  # no line about it ends anything
    kept = ("- On 14 January 2026 the user said: “I sold my old car and I keep a small fishing boat in the harbour.”\n"
            "- On 2 March 2026 the user said: “I took the boat out to Brač on Sunday.”")
    assert still_ended("Do I still have a boat?", "Yes, in the harbour.", kept) is None  # the latest ends nothing
    assert still_ended("Do I have a boat?", "You have a boat.", sold) == (  # no "still", the same question
        "No - you told me on 25 March 2026 that you sold the boat in March, you weren't using it enough.")


def test_a_question_about_now_answered_as_if_a_thing_the_latest_line_ends_still_held_gets_that_line():
    """Set AH, held out: "How many cups of coffee do I drink a day now?" -> "You drink a lot of coffee a day now."
    beside "I quit coffee completely last month."; "Am I still running the half marathon?" -> "You are still running
    the half marathon." beside "I had to pull out of the half marathon because of a stress fracture." (no word of
    ending the guard knew)."""
    from panda.pipeline.answer_changes import still_ended

    quit_ = "- On 19 April 2026 the user said: “I quit coffee completely last month.” (last month: 5-30 March 2026)"
    assert still_ended("How many cups of coffee do I drink a day now?", "You drink a lot of coffee a day now.",
                       quit_) == "None - you told me on 19 April 2026 that you quit coffee completely last month."
    assert still_ended("What coffee do I drink in the morning now?", "A flat white.", quit_) == (
        "You told me on 19 April 2026 that you quit coffee completely last month.")
    assert still_ended("How many cups of coffee did I drink a day?", "Two cups.", quit_) is None  # asked about then
    run = ("- On 26 January 2026 the user said: “I'm training for the Nairobi half marathon in October.”\n"
           "- On 12 April 2026 the user said: “I had to pull out of the half marathon because of a stress fracture.”")
    assert still_ended("Am I still running the half marathon?", "You are still running the half marathon.", run) == (
        "No - you told me on 12 April 2026 that you had to pull out of the half marathon because of a stress fracture.")
    moved = ("- On 2 February 2026 the user said: “I work as a teller at a bank in Porto.”\n"
             "- On 9 May 2026 the user said: “I left the bank and joined a startup in Lisbon.”")
    assert still_ended("Where do I work now?", "At a startup in Lisbon.", moved) is None  # says what the line goes on to
    # set AI, held out: the van ended, not the pickup bought with it
    van = "- On 29 March 2026 the user said: “I sold my van and bought an electric pickup.”"
    assert still_ended("What colour is my pickup?", "Bosco had surgery on his hip last week.", van) is None
    assert still_ended("Do I still have my van?", "Yes, you have a van.", van) == (
        "No - you told me on 29 March 2026 that you sold your van and bought an electric pickup.")


def test_an_answer_repeating_a_line_that_says_fewer_of_the_questions_words_is_sent_to_the_line_saying_more():
    """Set AF, held out: "What part do I sing in the choir?" -> "The choir moved its practice to Thursday evenings."
    beside "I sing alto in our church choir on Sunday mornings." (both share "choir"; the alto line "sing" too). A line
    that changes the other is no such line: the answer about now is the newer, whatever words it says."""
    from panda.pipeline.answer_lines import unrelated_line

    choir = ("- On 5 February 2026 the user said: “I sing alto in our church choir on Sunday mornings.”\n"
             "- On 9 April 2026 the user said: “The choir moved its practice to Thursday evenings.”")
    assert unrelated_line("What part do I sing in the choir?", "The choir moved its practice to Thursday evenings.",
                          choir) == "I sing alto in our church choir on Sunday mornings."
    assert unrelated_line("When does the choir practise now?", "The choir moved its practice to Thursday evenings.",
                          choir) is None
    car = ("- On 5 January 2026 the user said: “I drive a blue Ford car to work.”\n"
           "- On 2 March 2026 the user said: “I sold the Ford and bought a Tesla, a red car.”")
    assert unrelated_line("What car do I drive to work now?", "You sold the Ford and bought a Tesla, a red car.",
                          car) is None  # the newer line changes the older


def test_a_price_never_said_is_unanswered_however_small_and_a_days_range_is_no_amount():
    """Set AF, held out: "How much did the sauna cost?" -> "The sauna is finished, we used it for the first time between
    6 and 14 April 2026." (no price said: "6" was read as one, and a small amount may be inferred for a count)."""
    from panda.pipeline.answer_checks import unanswered

    sauna = ("- On 15 April 2026 the user said: “The sauna is finished, we used it for the first time last weekend.” "
             "(last weekend: 11-12 April 2026)")
    assert unanswered("How much did the sauna cost?", "The sauna is finished, we used it for the first time between 6 "
                      "and 14 April 2026.", sauna)
    assert unanswered("How much did the sauna cost?", "It cost 6 euros.", sauna)
    priced = "- On 15 April 2026 the user said: “The sauna cost about 4,000 euros, wood included.”"
    assert unanswered("How much did the sauna cost?", "About 4,000 euros.", priced) is False
    assert unanswered("How many cats do I have?", "You have 2 cats.", "- On 3 May 2026 the user said: “We adopted "
                      "a second cat.”") is False  # a small count may be inferred


def test_still_asked_of_a_thing_only_the_older_line_names_keeps_that_line_told_with_its_end():
    """Set AG, held out: "Do I still have a cat?" beside "My cat Liisu is fourteen years old." and "Liisu died in March,
    we miss her a lot.": the death replaced the older line, no line said "cat", and the answer was "You still have a
    cat.". For a still-question the older line stays, told with its change, and that change answers it; "How many cats
    do I have?" still reads the death alone (set G)."""
    from datetime import UTC, datetime

    from panda.memory.search import SearchResult
    from panda.pipeline.answer_changes import still_ended
    from panda.pipeline.evidence import answer_context

    def said(id_: str, text: str, month: int, day: int) -> SearchResult:
        return SearchResult(id=id_, kind="message", title="x", primary_topic="general", doc_path=id_, score=0.5,
                            snippet=f"user: {text}", quality=0.8, scope="user",
                            created_at=datetime(2026, month, day, 20, tzinfo=UTC))

    items = [said("o3", "My cat Liisu is fourteen years old.", 1, 5), said("o4", "Liisu died in March, we miss her a lot.",
                                                                            3, 22)]
    still = answer_context("Do I still have a cat?", items, {})
    assert still == ("- On 5 January 2026 the user said: “My cat Liisu is fourteen years old.”; later, on 22 March 2026, "
                     "the user said: “Liisu died in March, we miss her a lot.”")
    assert still_ended("Do I still have a cat?", "You still have a cat.", still) == (
        "No - you told me on 22 March 2026 that Liisu died in March, you miss her a lot.")
    assert "fourteen" not in answer_context("How many cats do I have?", items, {})


def test_still_answered_i_dont_know_beside_a_latest_line_that_ends_it_is_no():
    """Set AO, held out: "Does Ondrej still play in the brass band?" -> "Not enough information to answer this
    question." beside "Ondrej quit the brass band in March." (an abstention the scorer and the guards did not read)."""
    from panda.language.metrics import abstained
    from panda.pipeline.answer_changes import still_ended

    band = ("- On 13 May 2026 the user said: “Ondrej quit the brass band in March.”\n"
            "- On 11 February 2026 the user said: “My husband Ondrej plays the trumpet in a brass band.”")
    unknown = "Not enough information to answer this question."
    assert abstained(unknown) and abstained("There is insufficient information.")
    assert still_ended("Does Ondrej still play in the brass band?", unknown, band) == (
        "No - you told me on 13 May 2026 that Ondrej quit the brass band in March.")
    assert still_ended("Which instrument does Ondrej play now?", unknown, band) is None  # no "still": left alone
    playing = "- On 11 February 2026 the user said: “My husband Ondrej plays the trumpet in a brass band.”"
    assert still_ended("Does Ondrej still play in the brass band?", unknown, playing) is None  # nothing ends it


def test_how_many_now_is_the_count_said_with_the_changes_told_since():
    """Set AO, held out: "How many cats do I have now?" -> "No cats now.": "Sadly one of our cats, Tunde, died in April."
    replaced "I have three cats." in the context, and the count was lost. A change to part of a group keeps the count
    it changes, told on its line, and the count now is worked out from both."""
    from datetime import UTC, datetime

    from panda.language.changes import count_change, count_of
    from panda.memory.search import SearchResult
    from panda.pipeline.answer_changes import count_now
    from panda.pipeline.evidence import answer_context

    def said(id_: str, text: str, month: int, day: int) -> SearchResult:
        return SearchResult(id=id_, kind="message", title="x", primary_topic="general", doc_path=id_, score=0.5,
                            snippet=f"user: {text}", quality=0.8, scope="user",
                            created_at=datetime(2026, month, day, 20, tzinfo=UTC))

    items = [said("o1", "I have three cats.", 2, 3), said("o2", "Sadly one of our cats, Tunde, died in April.", 5, 5),
             said("o3", "I started a coding bootcamp in April.", 5, 5)]
    asked = "How many cats do I have now?"
    context = answer_context(asked, items, {})
    assert "- On 3 February 2026 the user said: “I have three cats.”; later, on 5 May 2026, the user said: “Sadly one " \
           "of our cats, Tunde, died in April.”" in context.splitlines()
    assert count_now(asked, "No cats now.", context) == (
        "Two - you told me on 5 May 2026 that sadly one of your cats, Tunde, died in April.")
    assert count_now(asked, "You have 2 cats.", context) is None  # the count given
    assert count_now("How many cats did I have in February?", "No cats.", context) is None  # asked about then
    assert count_now("How many dogs do I have now?", "None.", context) is None  # no count of dogs said
    # gains and losses of more than one; what a group is said to be changes nothing
    hens = {"hen"}
    assert count_of("We keep 3 goats and 12 hens", hens) == 12 and count_of("We keep 3 goats", hens) is None
    assert count_change("A fox took two of our hens last night, they were killed.", hens) == -2
    assert count_change("We bought another hen at the market.", hens) == 1
    assert count_change("I got four more hens.", hens) == 4
    assert count_change("Two of our hens are laying again.", hens) is None
    hives = ("- On 2 March 2026 the user said: “I keep two hives on the allotment.”\n"
             "- On 9 May 2026 the user said: “I got two more hives from a retiring beekeeper.”")
    assert count_now("How many hives do I have now?", "You keep two hives.", hives) == (
        "Four - you told me on 9 May 2026 that you got two more hives from a retiring beekeeper.")


def test_a_request_for_ideas_answered_with_nothing_of_its_own_is_read_so():
    """Sets AN and AO, held out: the 0.5B model said back what the user keeps to ("You don't eat pork.", "No gluten for
    me."), or "You can bake vegan desserts.", or copied a page's review text, as a suggestion."""
    from panda.pipeline.answer_ideas import names_nothing, pick, ruled_out

    pork = ("- avoids: pork (told 3 February 2026)\n"
            "- Mrs H Pyke gave gousto.co.uk 5 stars: “Gousto has changed my life. I cannot thank Gousto enough.”\n"
            "- On 3 February 2026 the user said: “I don't eat pork.”")
    asked = "Can you suggest a sandwich filling?"
    assert names_nothing(asked, "You don't eat pork.", pork)
    assert names_nothing(asked, "Gousto has changed my life.", pork)  # a page's words
    assert names_nothing(asked, "I don't know - you haven't told me.", pork)
    assert not names_nothing(asked, "Try egg mayonnaise - no pork in it.", pork)
    assert not names_nothing("Can you suggest a curry I could cook?", "You can cook a curry with vegetables.", pork)
    assert names_nothing("Can you suggest a dessert I could bake?", "You can bake vegan desserts.",
                         "- diet: vegan (told 2 February 2026)")
    assert not names_nothing("Do I eat pork?", "You don't eat pork.", pork)  # no request for ideas
    assert not names_nothing("Which sandwich did you recommend?", "You don't eat pork.", pork)  # what was said
    # the model's ideas for the request alone (set AP, held out: asked with the user's lines, it said "Try the New York
    # Times' 'Red Meat' series" for a lunch): the first the user's diet, allergy or avoidance leaves
    assert pick(["Pulled pork", "Egg mayonnaise"], asked, pork) == "Try egg mayonnaise."
    assert pick(["Pepperoni", "Mushroom and pepper"], "Can you suggest a pizza topping?",
                "- diet: vegan (told 2 March 2026)") == "Try mushroom and pepper."
    assert pick(["Baked salmon", "Lentil shepherd's pie"], "Can you suggest a main dish for Christmas?",
                "- diet: vegetarian (told 2 March 2026)") == "Try lentil shepherd's pie."  # no fish for a vegetarian
    coffee = "- On 20 January 2026 the user said: “I don't drink coffee.”"
    assert {"coffee", "espresso", "latte"} <= ruled_out(coffee) and "drink" not in ruled_out(coffee)
    assert pick(["Iced latte", "Chamomile tea"], "Can you suggest a hot drink for the morning?", coffee) == \
        "Try chamomile tea."
    assert pick(["The Great Gatsby"], "Can you recommend a book?", "No prior memory matched this query.") == \
        "Try The Great Gatsby."  # a title keeps its capitals
    assert pick(["Ham salad", "Pork pie"], asked, pork) is None  # each ruled out
    assert ruled_out("- On 3 May 2026 the user said: “I love hiking.”") == set()  # keeps clear of nothing
    assert ruled_out("- On 3 May 2026 the user said: “I'm allergic to sesame.”") == {"sesame"}  # a food RULED_OUT lacks
    # the bundled sample, on a fresh clone: "Suggest a day hike near where I live." beside "I live in Boston …" was asked
    # again for a request alone, which lost the place; the user's place is the answer's own to "near where I live",
    # and the request asked again says where the user lives
    from panda.llm.prompts import load_prompt
    from panda.pipeline.answer_ideas import home_of

    boston = "- On 4 March 2026 the user said: “I live in Boston and I love hiking on weekends.”"
    assert home_of(boston) == "Boston" and home_of("- residence: Porto (told 2 May 2026)") == "Porto"
    assert not names_nothing("Suggest a day hike near where I live.", "Head to the Blue Hills near Boston.", boston)
    assert names_nothing("Suggest a day hike near where I live.", "You love hiking in Boston.", "") is False
    assert load_prompt("suggest").render(query="Suggest a day hike near where I live.", home="Boston")[-1]["content"] \
        == "Request: Suggest a day hike near where I live.\nThe user lives in Boston."


def test_a_time_asked_is_a_clock_time_or_a_span_a_line_says_and_a_named_ones_ending_goes_from_an_answer_about_now():
    """Set AP, held out: "What was my 10k time?" -> "You ran your first 10k on 3 May 2026!" (the race's "10k" was read as
    the amount asked); "What does Abebe run now?" -> "Abebe sold the coffee farm in April and opened a café in Jimma."
    (what was given up was taken out only after "I", "you" or "we")."""
    from panda.pipeline.answer_changes import superseded_unsaid
    from panda.pipeline.answer_checks import unanswered

    ran = "- On 7 May 2026 the user said: “I ran my first 10k last Sunday!” (last Sunday: 3 May 2026)"
    assert unanswered("What was my 10k time?", "You ran your first 10k on 3 May 2026!", ran)
    timed = "- On 7 May 2026 the user said: “I ran my first 10k last Sunday in 52 minutes!”"
    assert unanswered("What was my 10k time?", "52 minutes.", timed) is False
    assert unanswered("What was my 10k time?", "About 50 minutes.", timed)  # never said
    gym = "- On 7 May 2026 the user said: “I go to the gym at 6 am before work.”"
    assert unanswered("What time do I go to the gym?", "At 6am.", gym) is False
    assert superseded_unsaid("What does Abebe run now?", "Abebe sold the coffee farm in April and opened a café in "
                             "Jimma.") == "Abebe opened a café in Jimma."
    assert superseded_unsaid("Where does Maria work now?", "Maria left the bank and joined a startup.") == \
        "Maria joined a startup."
    assert superseded_unsaid("Where did Maria work before?", "Maria left the bank and joined a startup.") is None


def test_set_aq_a_taxi_driven_is_a_job_a_pets_kind_is_no_breed_and_an_ending_tells_no_name():
    """Set AQ, held out: "I drive a taxi in Amman." was read as the user's car, and "What do I do for work?" got a line
    about a trip; "What breed is Pierogi?" -> "The cat Pierogi is a shellfish cat." passed as a word a line says ("a cat
    called Pierogi"); "What's the name of Lina's bakery?" got the line ending the bakery, though no name was said."""
    from panda.language.facts import extract_statements
    from panda.pipeline.answer_changes import still_ended
    from panda.pipeline.answer_checks import unanswered

    assert [(s.attribute, s.value) for s in extract_statements("I drive a taxi in Amman.")] == [("job", "taxi")]
    assert [(s.attribute, s.value) for s in extract_statements("I drive a red Corolla.")] == [("car", "red Corolla")]
    cat = ("- pet: cat called Pierogi (told 12 May 2026)\n- On 10 February 2026 the user said: “I'm allergic to shellfish.”\n"
           "- On 12 May 2026 the user said: “We adopted a cat called Pierogi two weeks ago.”")
    assert unanswered("What breed is Pierogi?", "The cat Pierogi is a shellfish cat.", cat)
    tabby = "- On 12 May 2026 the user said: “We adopted a tabby cat called Pierogi.”"
    assert unanswered("What breed is Pierogi?", "Pierogi is a tabby.", tabby) is False
    bakery = ("- On 22 January 2026 the user said: “My wife Lina runs a bakery.”\n"
              "- On 23 April 2026 the user said: “Lina sold the bakery in March and now teaches baking classes.”")
    assert still_ended("What's the name of Lina's bakery?", "Lina runs a bakery.", bakery) is None
    assert still_ended("Does Lina still run the bakery?", "Yes.", bakery) == (
        "No - you told me on 23 April 2026 that Lina sold the bakery in March and now teaches baking classes.")


def test_a_job_said_back_is_the_users_line_though_the_line_never_says_job():
    """Set AG, held out: "What is my job?" -> "You're a social worker in Galway." was sent back by the 0.5B validator
    (the line shares no word with the question: "social worker" is a job only read so)."""
    from panda.language.facts import extract_statements
    from panda.pipeline.answer_lines import stated_line

    line = "- On 12 January 2026 the user said: “I'm a social worker in Galway.”"
    assert stated_line("What is my job?", "You're a social worker in Galway.", line) == "I'm a social worker in Galway."
    assert [(s.attribute, s.value) for s in extract_statements("I'm a social worker in Galway.")] == \
        [("job", "social worker")]
    assert extract_statements("I'm a hard worker.") == []


def test_a_measure_of_the_things_never_said_is_unanswered_and_a_before_question_gets_the_line_of_the_change():
    """Set AH, held out: "How big is the farmhouse?" -> "The farmhouse is 120 square feet." (never said: only "my" and
    "our" things were read as asking a measure); "What exercise did I do before I hurt my knee?" -> "No prior memory
    matched this query." beside "I hurt my knee in February, so I've switched from running to cycling."."""
    from panda.pipeline.answer_checks import told_line, unanswered

    farm = "- On 1 February 2026 the user said: “My partner Joris and I are renovating an old farmhouse.”"
    assert unanswered("How big is the farmhouse?", "The farmhouse is 120 square feet.", farm)
    assert unanswered("How tall is Joris?", "Joris is 1.9 m tall.", farm)
    sized = "- On 1 February 2026 the user said: “The farmhouse is about 200 square metres.”"
    assert unanswered("How big is the farmhouse?", "About 200 square metres.", sized) is False
    knee = ("- On 15 March 2026 the user said: “I hurt my knee in February, so I've switched from running to cycling.”\n"
            "- On 8 January 2026 the user said: “I run 10 kilometres every Sunday morning.”")
    assert told_line("What exercise did I do before I hurt my knee?", "No prior memory matched this query.", knee) == (
        "You told me on 15 March 2026: “I hurt my knee in February, so I've switched from running to cycling.”")
    # about now, the change names the exercise (cycling says exercise, vocabulary.KINDS_SAID) and says what holds now
    assert told_line("What exercise do I do now?", "I don't know.", knee) == (
        "You told me on 15 March 2026: “I hurt my knee in February, so I've switched from running to cycling.”")


def test_set_ai_answers_about_now_lose_the_old_value_and_an_unrelated_line_yields_to_the_vehicle_or_trade_asked():
    """Set AI, held out: "Which race am I training for now?" -> "You are training for the Victoria Falls marathon now."
    beside that line told with its change "from the marathon to the half marathon" (the old value is inside the new);
    "Who do I share my flat with now?" -> "Marta moved out in April, so it's just Ola and you now."; "What vehicle do I
    drive now?" and "What's my trade?" -> "You have a Labrador called Bosco." (no line said "vehicle" or "trade")."""
    from panda.pipeline.answer_changes import stale_value_said, superseded_unsaid
    from panda.pipeline.answer_lines import unrelated_line

    race = ("- On 27 January 2026 the user said: “I'm training for the Victoria Falls marathon.”; later, on 14 April "
            "2026, the user said: “I switched from the marathon to the half marathon because of my back.”")
    assert stale_value_said("Which race am I training for now?", "You are training for the Victoria Falls marathon now.",
                            race) == "You told me on 14 April 2026 that you switched to the half marathon because of your back."
    assert stale_value_said("Which race am I training for now?", "The half marathon.", race) is None
    assert superseded_unsaid("Who do I share my flat with now?", "Marta moved out in April, so it's just Ola and you "
                             "now.") == "It's just Ola and you now."
    lines = ("- On 29 March 2026 the user said: “I sold my van and bought an electric pickup.”\n"
             "- On 11 January 2026 the user said: “I'm a carpenter in Belfast.”\n"
             "- On 11 January 2026 the user said: “I have a Labrador called Bosco.”")
    assert unrelated_line("What vehicle do I drive now?", "You have a Labrador called Bosco now.", lines) == (
        "I sold my van and bought an electric pickup.")
    assert unrelated_line("What's my trade?", "You have a Labrador called Bosco.", lines) == "I'm a carpenter in Belfast."


def test_set_ak_a_kind_asked_is_said_by_its_member_and_a_who_is_not_the_person_asked_about():
    """Set AK, held out: "What sport do I do now?" -> "You can't eat gluten because you're coeliac." beside "I stopped
    swimming after an ear infection and took up rowing." (no line said "sport"); "What is Salma studying now?" -> "No
    information available …" beside "Salma switched to medicine."; "Who is Chioma marrying?" -> "Your sister Chioma is
    getting married in December." (never said who: the sister is Chioma herself)."""
    from panda.pipeline.answer_checks import told_line, unanswered
    from panda.pipeline.answer_lines import unrelated_line

    lines = ("- On 19 May 2026 the user said: “I stopped swimming after an ear infection and took up rowing.”\n"
             "- On 17 February 2026 the user said: “I can't eat gluten because I'm coeliac.”")
    assert unrelated_line("What sport do I do now?", "You can't eat gluten because you're coeliac.", lines) == (
        "I stopped swimming after an ear infection and took up rowing.")
    study = ("- daughter: Salma (told 27 January 2026)\n"
             "- On 21 April 2026 the user said: “Salma switched to medicine.”\n"
             "- On 27 January 2026 the user said: “I don't eat pork.”")
    assert told_line("What is Salma studying now?", "No information available about Salma studying now.", study) == (
        "You told me on 21 April 2026: “Salma switched to medicine.”")
    assert told_line("What is Salma cooking now?", "No information available.", study) is None  # no kind said
    wedding = "- On 19 May 2026 the user said: “My sister Chioma is getting married in December.”"
    assert unanswered("Who is Chioma marrying?", "Your sister Chioma is getting married in December.", wedding)
    fiance = wedding + "\n- On 2 June 2026 the user said: “Chioma's fiancé is my old friend Tunde.”"
    assert not unanswered("Who is Chioma marrying?", "Your friend Tunde.", fiance)


def test_a_when_answer_copying_an_unrelated_line_gets_the_date_of_the_line_asked_about():
    """Set AK, held out: "When did I do my first triathlon?" -> "On 3 February 2026 the user said: “I work as a dental
    hygienist at a practice in Lyon.”", mended to that line's day, beside the triathlon line of 12 May."""
    from panda.pipeline.answer_dates import uncopied_answer

    lines = ("- allergy: shellfish (told 3 February 2026)\n"
             "- On 12 May 2026 the user said: “I did my first triathlon on Sunday.” (on sunday: 10 May 2026)\n"
             "- On 3 February 2026 the user said: “I work as a dental hygienist at a practice in Lyon.”")
    copied = "On 3 February 2026 the user said: “I work as a dental hygienist at a practice in Lyon.”"
    assert uncopied_answer("When did I do my first triathlon?", copied, lines) == "On 10 May 2026."
    assert uncopied_answer("When did I start at the practice?", copied, lines) == "On 3 February 2026."
    # no line about the question: the copied line's day stays (not the first line's)
    assert uncopied_answer("When did I buy my kayak?", copied, lines) == "On 3 February 2026."


def test_one_of_a_kind_asked_needs_a_member_a_line_names():
    """Set AK, held out: "Which languages do I translate from?" -> "The languages I translate from are Russian and
    English." (never said) beside "I'm a translator in Riga."; an answer naming no sport is none to "What sport …?"."""
    from panda.pipeline.answer_checks import unanswered

    riga = "- On 10 February 2026 the user said: “I'm a translator in Riga.”"
    assert unanswered("Which languages do I translate from?", "The languages I translate from are Russian and English.", riga)
    said = riga + "\n- On 1 March 2026 the user said: “I translate from Latvian into English.”"
    assert not unanswered("Which languages do I translate from?", "You translate from Latvian into English.", said)
    row = "- On 19 May 2026 the user said: “I stopped swimming after an ear infection and took up rowing.”"
    assert unanswered("What sport do I do now?", "You can't eat gluten because you're coeliac.", row)
    assert not unanswered("What sport do I do now?", "Rowing.", row)
    assert not unanswered("What do I do on Saturdays?", "You coach football.", "- On 1 May 2026 the user said: “I coach "
                          "football on Saturdays.”")  # no kind asked


def test_how_many_beside_the_one_left_by_name_is_one_told_with_its_line():
    """Set AJ: "How many rabbits do I have now?" -> "I don't know", beside "Flo died last week, so it's just Pip now."
    (the line of two rabbits replaced by it, no line left counting rabbits)."""
    from panda.pipeline.answer_checks import told_line

    left = "- On 15 April 2026 the user said: “Flo died last week, so it's just Pip now.”"
    assert told_line("How many rabbits do I have now?", "I don't know.", left) == (
        "One - you told me on 15 April 2026: “Flo died last week, so it's just Pip now.”")
    counted = left + "\n- On 2 May 2026 the user said: “We adopted two more rabbits.”"
    assert told_line("How many rabbits do I have now?", "I don't know.", counted) is None  # a line counts them


def test_driving_for_a_company_says_a_job_and_its_change_what_holds_now():
    """Set AK, held out: "What do I do for work now?" -> "No prior memory matched this query." beside "I sold the taxi
    in March and now drive a van for a delivery company." (no line said "work")."""
    from panda.pipeline.answer_changes import told_now
    from panda.pipeline.answer_checks import told_line

    lines = ("- avoids: pork (told 27 January 2026)\n"
             "- On 21 April 2026 the user said: “I sold the taxi in March and now drive a van for a delivery company.”")
    told = told_line("What do I do for work now?", "No prior memory matched this query.", lines)
    assert told == "You told me on 21 April 2026: “I sold the taxi in March and now drive a van for a delivery company.”"
    assert told_now("What do I do for work now?", told) == "You told me on 21 April 2026 that you drive a van for a " \
        "delivery company."
    assert told_line("What do I do for work now?", "I don't know.", "- On 2 May 2026 the user said: “I drive my kids to "
                     "school for a change.”") is None  # no company, no work


def test_set_al_one_left_on_her_own_what_befell_a_pet_a_dated_line_said_back_and_a_subject_never_said():
    """Set AL, held out: "How many hens do I have now?" -> "You have 2 hens now." beside "A mongoose got Lani last month,
    so Koa is on her own now."; "What happened to Lani?" -> "Lani got Lani last month, so Koa is on her own now.";
    "Where do I sell flowers now?" -> "Noa passed the final flight exam on 1 May 2026!" (the line "… on Friday!" with
    its day put in, not read as that line); "What is Aigerim studying?" -> "Aigerim studies diabetes." (never said)."""
    from panda.pipeline.answer_checks import told_line, unanswered
    from panda.pipeline.answer_lines import happened_line, unrelated_line

    hens = ("- On 11 May 2026 the user said: “A mongoose got Lani last month, so Koa is on her own now.” (last month: 27 "
            "March - 21 April 2026)\n- On 9 February 2026 the user said: “I surf every morning before work.”")
    assert unanswered("How many hens do I have now?", "You have 2 hens now.", hens)
    assert told_line("How many hens do I have now?", "I don't know.", hens) == (
        "One - you told me on 11 May 2026: “A mongoose got Lani last month, so Koa is on her own now.”")
    assert happened_line("What happened to Lani?", "Lani got Lani last month, so Koa is on her own now.", hens) == (
        "You told me on 11 May 2026: “A mongoose got Lani last month, so Koa is on her own now.”")
    assert happened_line("What happened to Lani?", "A mongoose got Lani last month.", hens) is None
    flowers = ("- job: florist (told 2 February 2026)\n"
               "- On 4 May 2026 the user said: “I closed the shop in April and now sell flowers at the market instead.”\n"
               "- On 4 May 2026 the user said: “Noa passed the final flight exam on Friday!” (on friday: 1 May 2026)")
    assert unrelated_line("Where do I sell flowers now?", "Noa passed the final flight exam on 1 May 2026!", flowers) == (
        "I closed the shop in April and now sell flowers at the market instead.")
    astana = "- On 30 April 2026 the user said: “My daughter Aigerim got into university in Astana.”"
    assert unanswered("What is Aigerim studying?", "Aigerim studies diabetes.", astana)
    assert not unanswered("Where is Aigerim studying?", "In Astana.", astana)


def test_set_am_a_subject_taught_is_a_kind_answered_and_an_unlisted_member_said_by_its_line():
    """Set AM, held out: "What subject do I teach?" -> "You teach French at a secondary school in Quebec City." became
    "I don't know" (set AK's kind check knew no language as a subject); a subject the vocabulary does not list is
    answered when the line about the question says it."""
    from panda.pipeline.answer_checks import unanswered

    french = "- On 5 February 2026 the user said: “I teach French at a secondary school in Quebec City.”"
    assert not unanswered("What subject do I teach?", "You teach French at a secondary school in Quebec City.", french)
    woodwork = "- On 5 February 2026 the user said: “I teach woodwork at a secondary school.”"
    assert not unanswered("What subject do I teach?", "You teach woodwork.", woodwork)
    assert unanswered("What subject do I teach?", "You teach maths.", woodwork)  # a member never said


def test_set_am_a_job_names_no_subject_of_study():
    """Set AM, held out (re-run): "What am I studying?" -> "You don't eat beef." became "I don't know", beside "I started
    night classes in accounting in March.": "I'm a nurse …" counted as a second line of study (nurse, nursing), so no
    one line said it. A job is no member of a kind (vocabulary.member_stems)."""
    from panda.pipeline.answer_checks import told_line, unanswered

    classes = ("- job: nurse (told 19 January 2026)\n"
               "- On 20 April 2026 the user said: “I started night classes in accounting in March.”\n"
               "- On 19 January 2026 the user said: “I'm a nurse at a clinic in Gaborone.”\n"
               "- On 20 April 2026 the user said: “Tumelo gave up the violin and joined the football team instead.”")
    assert told_line("What am I studying?", "I don't know - you haven't told me that.", classes) == (
        "You told me on 20 April 2026: “I started night classes in accounting in March.”")
    assert unanswered("What am I studying?", "You are a nurse.", classes)  # a job is no subject
    assert not unanswered("What am I studying?", "You're studying accounting at night classes.", classes)


def test_set_am_a_span_is_said_by_a_line_about_the_thing_or_worked_out_from_its_year():
    """Set AM, held out: "How long have I been married?" -> "You have been married for 16 months." beside "My wife
    Sigrun runs a pottery studio." (no span, no wedding said)."""
    from panda.pipeline.answer_checks import unanswered

    wife = ("- On 16 February 2026 the user said: “My wife Sigrun runs a pottery studio.”\n"
            "- On 18 May 2026 the user said: “I retired from the ferries in April.”")
    assert unanswered("How long have I been married?", "You have been married for 16 months.", wife)
    assert unanswered("How long have I been married?", "Since 2010.", wife)
    veg = "- On 5 February 2026 the user said: “I've been vegetarian for ten years, and I run a long way on Sundays.”"
    assert not unanswered("How long have I been vegetarian?", "For ten years.", veg)
    assert unanswered("How long have I been vegetarian?", "For 12 years.", veg)
    wed = "- On 5 February 2026 the user said: “Sam and I got married in 2019.”"
    assert not unanswered("How long have I been married?", "About 7 years, since 2019.", wed)  # worked out from the year
    assert unanswered("How long have I been married?", "Since 2018.", wed)


def test_set_an_a_thing_asked_in_the_present_a_dated_line_said_again_and_a_named_pet_s_breed():
    """Set AN, held out: "What day is choir practice?" -> "On Wednesday evenings." beside "Choir practice moved to
    Thursday evenings." (the question named no "I" or "my", so it was not read as one about now); "Which town do I work
    in?" -> "We sold Yaw to a neighbour last month.", dated "… between 9 March and 3 April 2026", not read as that line
    said again; "What breed is Pemba?" -> "Pemba is a midwife in Rotorua." (a name asked after by itself, no "Pemba's")."""
    from panda.pipeline.answer_checks import unanswered
    from panda.pipeline.answer_lines import unrelated_line
    from panda.pipeline.evidence import about_now

    assert about_now("What day is choir practice?")
    assert about_now("Which town do I work in?")
    assert not about_now("What day was choir practice before?")
    assert not about_now("What did Jon visit?")
    goats = ("- job: pharmacist (told 22 January 2026)\n"
             "- On 23 April 2026 the user said: “We sold Yaw to a neighbour last month.” (last month: 9 March - 3 April "
             "2026)\n- On 22 January 2026 the user said: “I'm a pharmacist in Tamale.”")
    assert unrelated_line("Which town do I work in?", "We sold Yaw to a neighbour between 9 March and 3 April 2026.",
                          goats) == "I'm a pharmacist in Tamale."
    pemba = ("- On 30 April 2026 the user said: “My dog Pemba had surgery on her leg last Friday.”\n"
             "- On 29 January 2026 the user said: “I'm a midwife in Rotorua.”")
    assert unanswered("What breed is Pemba?", "Pemba is a midwife in Rotorua.", pemba)
    assert unanswered("What breed is Pemba?", "Pemba is a border collie.", pemba)
    collie = "- On 30 April 2026 the user said: “My dog Pemba is a border collie.”"
    assert not unanswered("What breed is Pemba?", "Pemba is a border collie.", collie)


def test_set_ar_which_one_of_a_kind_answered_with_a_line_naming_none_and_ideas_said_unavailable():
    """Set AR, held out: "What breed is Koukla?" -> "You adopted another dog, a puppy called Koukla, in April.", "What
    position does Cian play?" -> "Cian plays hurling on Saturday." and "What motorbike do I want?" -> "You have now
    saved 20,000 rand for the motorbike." were approved, none ever said; "Can you suggest a lunch I could take to
    work?" -> "No lunch suggestions available." was not read as naming nothing."""
    from panda.pipeline.answer_ideas import names_nothing
    from panda.pipeline.answer_lines import kind_unsaid

    puppy = said("4 May 2026", "We adopted another dog, a puppy called Koukla, in April.")
    assert kind_unsaid("What breed is Koukla?", "You adopted another dog, a puppy called Koukla, in April.", puppy)
    beagle = said("4 May 2026", "We adopted a beagle puppy called Koukla.")
    assert not kind_unsaid("What breed is Koukla?", "Koukla is a beagle.", beagle)
    assert not kind_unsaid("What breed is Koukla?", "You adopted a beagle puppy called Koukla.", beagle)
    hurling = ("- son: Cian (told 20 April 2026)\n"
               + said("20 April 2026", "My son Cian broke his arm playing hurling on Saturday."))
    assert kind_unsaid("What position does Cian play?", "Cian plays hurling on Saturday.", hurling)
    keeper = said("20 April 2026", "My son Cian plays in goal; he's the goalkeeper for his hurling team.")
    assert not kind_unsaid("What position does Cian play?", "Cian is the goalkeeper for his hurling team.", keeper)
    savings = (said("16 February 2026", "I'm saving for a motorbike and have 12,000 rand so far.") + "\n"
               + said("18 May 2026", "I've now saved 20,000 rand for the motorbike."))
    assert kind_unsaid("What motorbike do I want?", "You have now saved 20,000 rand for the motorbike.", savings)
    honda = said("18 May 2026", "I'm saving for a Honda motorbike.")
    assert not kind_unsaid("What motorbike do I want?", "You're saving for a Honda motorbike.", honda)
    assert not kind_unsaid("What motorbike do I want?", "You want a Honda.", said("18 May 2026", "I want a Honda."))
    choir = said("1 June 2026", "I sing alto in our church choir on Sunday mornings.")
    assert not kind_unsaid("What kind of choir do I sing in?", "You sing alto in your church choir.", choir)
    # a kind with no members known and never said is the model's: a pickup is a car
    assert not kind_unsaid("What car do I drive now?", "You bought a pickup.",
                           said("2 June 2026", "I sold my van and bought a pickup."))
    assert not kind_unsaid("What breed is Koukla?", "I don't know.", puppy)
    lunch = "Can you suggest a lunch I could take to work?"
    assert names_nothing(lunch, "No lunch suggestions available.", "- avoids: gluten (told 19 January 2026)")
    assert not names_nothing(lunch, "A rice salad with chickpeas.", "- avoids: gluten (told 19 January 2026)")


def test_set_ar_a_swap_told_on_the_older_line_is_said_and_a_moved_day_is_no_stale_kind():
    """Set AR, held out: "Where do I swim now?" -> "We've switched to the pool since the storms in March." (the change
    said with its new value only) became "I don't know": the pool was said on the line's later part, which was not read;
    "What kind of choir do I sing in?" -> "I sing in a gospel choir on Sundays." became the line moving the practice from
    Sundays to Friday evenings, a day moved, which the question did not ask."""
    from panda.pipeline.answer_changes import stale_value_said

    swim = ("- On 19 January 2026 the user said: “I swim in the sea every morning at Salthill.”; later, on 20 April 2026, "
            "the user said: “I've swapped sea swimming for the pool since the storms in March.”")
    assert not unanswered("Where do I swim now?", "We've switched to the pool since the storms in March.", swim)
    assert unanswered("Where do I swim now?", "You swim in the lake.", swim)
    choir = (said("27 January 2026", "I sing in a gospel choir on Sundays.") + "\n"
             + said("28 April 2026", "The choir moved its practice from Sundays to Friday evenings."))
    assert stale_value_said("What kind of choir do I sing in?", "I sing in a gospel choir on Sundays.", choir) is None
    assert "Friday evenings" in (stale_value_said("When does the choir practise now?", "On Sundays.", choir) or "")


def test_set_as_an_earlier_way_to_work_an_instrument_unlisted_and_a_moved_day_quoted_for_now():
    """Set AS, held out: "How did I get to work before?" -> "No prior memory matched this query." beside "I cycle to work
    every day." and "I sold my bike and now take the tram to work." (no line said "get"); "What instrument do I play?"
    -> "I don't know" beside "I've started playing the oud in a small band." (no oud in the instruments); "When do I
    volunteer at the shelter now?" got the line moving the shifts "from Saturdays to Wednesday mornings", the day given
    up said with it."""
    from panda.pipeline.answer_changes import told_now
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_dates import undated_answer
    from panda.pipeline.answer_lines import earlier_line

    work = (said("2 March 2026", "I don't eat pork.") + "\n" + said("1 June 2026", "I sold my bike and now take the tram to work.")
            + "\n" + said("2 March 2026", "I cycle to work every day."))
    told = told_line("How did I get to work before?", "No prior memory matched this query.", work)
    assert told and earlier_line("How did I get to work before?", told, work) == \
        "You told me on 2 March 2026: “I cycle to work every day.”"
    oud = said("5 May 2026", "I've started playing the oud in a small band.") + "\n" + \
        said("5 May 2026", "Tariq moved back to Amman in April to be near us.")
    assert told_line("What instrument do I play?", "I don't know - you haven't told me that.", oud) == \
        "You told me on 5 May 2026: “I've started playing the oud in a small band.”"
    shifts = said("27 April 2026", "I've moved my shelter shifts from Saturdays to Wednesday mornings.")
    quoted_line = undated_answer("When do I volunteer at the shelter now?", "You volunteer at the shelter now.", shifts)
    assert quoted_line and told_now("When do I volunteer at the shelter now?", quoted_line) == \
        "You told me on 27 April 2026 that you've moved your shelter shifts to Wednesday mornings."


def test_a_request_for_ideas_names_what_the_user_keeps_to():
    """Set AS, held out: asked again, the request names the user's diet, allergy or avoidance (answer_ideas.kept_request)."""
    from panda.pipeline.answer_ideas import kept_request

    assert kept_request("Can you suggest a dinner for tonight?", "- diet: vegetarian (told 12 January 2026)") == \
        "Can you suggest a vegetarian dinner for tonight?"
    assert kept_request("Can you suggest a snack for a road trip?", "- allergy: peanuts (told 3 February 2026)") == \
        "Can you suggest a peanut-free snack for a road trip?"
    assert kept_request("Can you suggest a dessert?", "- diet: diabetic (told 23 February 2026)") == \
        "Can you suggest a sugar-free dessert?"
    assert kept_request("Any ideas for a hot drink?", said("26 January 2026", "I don't drink coffee.")) == \
        "Any ideas for a coffee-free hot drink?"
    assert kept_request("Can you recommend an easy snack?", "- allergy: nuts (told 2 March 2026)\n"
                        "- diet: vegan (told 2 March 2026)") == "Can you recommend a nut-free and plant-based easy snack?"
    # (a vegan diet is asked for as plant-based, which the 0.5B model keeps to: set BE, held out)
    assert kept_request("What could I cook for friends?", "- avoids: pork (told 2 March 2026)") == \
        "What could I cook for friends (pork-free)?"
    assert kept_request("Can you suggest a dessert?", "- job: nurse (told 2 March 2026)") is None


def test_set_at_counts_changed_by_a_fox_and_a_birth_a_named_persons_place_and_job_and_a_change_said_in_the_present():
    """Set AT, held out: "How many chickens do I have now?" -> "There are three chickens now." beside "A fox took one of
    our chickens on Sunday."; "How many kids do we have now?" -> "At least 2 kids now." beside "We had a baby girl, Maja,
    on Friday!"; "When was Maja born?" and "Where is Iker coming from?" -> "I don't know" beside the lines saying them;
    "What is Signe's job?" -> "Your wife Signe and you have two kids." (never said); "Which shift do I work now?" ->
    "You switch from the night shift to early mornings."; "Can you suggest a breakfast?" -> "You can't stand horror
    films." (the synthesize prompt's example)."""
    from panda.language.changes import count_change
    from panda.language.text import word_stems
    from panda.pipeline.answer_changes import count_now, superseded_unsaid
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_ideas import names_nothing

    assert count_change("A fox took one of our chickens on Sunday.", word_stems("chickens")) == -1
    assert count_change("We had a baby girl, Maja, on Friday!", word_stems("kids")) == 1
    assert count_change("I had a baby shower on Friday.", word_stems("kids")) is None
    hens = said("4 May 2026", "A fox took one of our chickens on Sunday.") + "\n" + said("2 February 2026", "I have three chickens.")
    assert (count_now("How many chickens do I have now?", "There are three chickens now.", hens) or "").startswith("Two - ")
    kids = said("12 May 2026", "We had a baby girl, Maja, on Friday!") + "\n" + \
        said("10 February 2026", "My wife Signe and I have two kids.")
    assert (count_now("How many kids do we have now?", "At least 2 kids now.", kids) or "").startswith("Three - ")
    assert told_line("When was Maja born?", "I don't know - you haven't told me that.", kids) == \
        "You told me on 12 May 2026: “We had a baby girl, Maja, on Friday!”"
    assert unanswered("What is Signe's job?", "Your wife Signe and you have two kids.", kids)
    assert not unanswered("What is Signe's job?", "Signe is a midwife.", kids + "\n" + said("1 March 2026", "Signe is a midwife."))
    iker = said("15 April 2026", "My nephew Iker is visiting from Bilbao next month.")
    assert told_line("Where is Iker coming from?", "I don't know - you haven't told me where Iker is from.", iker) == \
        "You told me on 15 April 2026: “My nephew Iker is visiting from Bilbao next month.”"
    assert unanswered("Where is Iker coming from?", "Iker is coming from Madrid.", iker)
    assert not unanswered("Where is Iker coming from?", "Iker is coming from Bilbao.", iker)
    assert superseded_unsaid("Which shift do I work now?", "You switch from the night shift to early mornings.") == \
        "You switch to early mornings."
    lactose = "- diet: lactose intolerant (told 14 January 2026)"
    assert names_nothing("Can you suggest a breakfast?", "You can't stand horror films.", lactose)
    assert not names_nothing("Can you suggest a breakfast?", "You could have porridge with oat milk.", lactose)


def test_set_at_what_was_before_the_thing_named_comes_from_the_line_giving_it_up():
    """Set AT, held out: "What did I do before pilates?" -> "If you're lactose intolerant, you can't do pilates before you
    get a shoulder injury." beside "I gave up padel after a shoulder injury and now do pilates."."""
    from panda.pipeline.answer_lines import before_named

    lines = said("15 April 2026", "I gave up padel after a shoulder injury and now do pilates.") + "\n" + \
        said("14 January 2026", "I play padel twice a week.")
    quote = "You told me on 15 April 2026: “I gave up padel after a shoulder injury and now do pilates.”"
    assert before_named("What did I do before pilates?", "If you're lactose intolerant, you can't do pilates before you "
                        "get a shoulder injury.", lines) == quote
    assert before_named("What sport did I play before pilates?", "I don't know - you haven't told me that.", lines) == quote
    assert before_named("What did I do before pilates?", "You played padel.", lines) is None
    assert before_named("What did I eat before the race?", "Pasta.", lines) is None


def test_set_at_and_au_a_thing_said_as_the_thing_the_user_alone_and_the_old_one_named_by_the_new_ones_name():
    """Set AT, held out: "Who runs the catering business now?" -> "I don't know" beside "Zodwa left the business in
    March, so I run it alone now."; "What is my new job?" quoted "… for a new job." (no job said). Set AU: "What was my
    old violin teacher called?" -> "My new teacher is called Zsófia."; "No recommendations available based on the
    information provided." was read as naming an idea."""
    from panda.memory.current_facts import names_in
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_ideas import names_nothing

    alone = said("17 April 2026", "Zodwa left the business in March, so I run it alone now.")
    dont_know = "I don't know - you haven't told me who runs the catering business now."
    assert told_line("Who runs the catering business now?", dont_know, alone) == \
        "You told me on 17 April 2026: “Zodwa left the business in March, so I run it alone now.”"
    assert told_line("Who runs the bakery business now?", dont_know, said("1 May 2026", "I run a business alone.")) is None
    assert told_line("Who runs the catering business now?", dont_know,
                     said("17 April 2026", "I bought a food truck for the business.")) is None  # no one does it
    job = said("4 June 2026", "I'm moving to Novi Sad in September for a new job.")
    assert told_line("What is my new job?", "I don't know.", job) is None
    baker = said("4 June 2026", "I've got a new job as a baker.")
    assert told_line("What is my new job?", "I don't know.", baker) == \
        "You told me on 4 June 2026: “I've got a new job as a baker.”"
    violin = said("23 April 2026", "I switched violin teachers, and my new teacher is called Zsófia.")
    assert unanswered("What was my old violin teacher called?", "My new teacher is called Zsófia.", violin)
    assert unanswered("What was my previous violin teacher's name?", "Zsófia.", violin)
    assert not unanswered("What is my violin teacher called?", "Your teacher is called Zsófia.", violin)
    old = violin + "\n" + said("23 April 2026", "My old teacher Ildikó retired.")
    assert not unanswered("What was my old violin teacher called?", "Ildikó.", old)
    assert names_in("My teacher is Zsófia, and Łukasz lends me his bow.") == ["Zsófia", "Łukasz"]
    assert names_nothing("Can you suggest a breakfast?", "No recommendations available based on the information provided.",
                         "- allergy: eggs (told 22 January 2026)")
    assert not names_nothing("Can you suggest a breakfast?", "Porridge with berries, based on oats.",
                             "- allergy: eggs (told 22 January 2026)")


def test_set_av_lines_said_in_other_words_a_place_for_where_and_a_relations_name_for_no_thing():
    """Set AV, held out: "Who lives with me now?" -> "My cousin Almudena moved in." (right) became "I don't know" (no line
    said "live"); "How many babies did Thembeka have?" -> "… had twins" likewise (twins are two babies); "What instrument
    am I learning?" -> "I don't know" beside "I started learning the dombra."; "What are the twins called?" -> "Your
    sister Thembeka had twins …" (the sister's name); "Where did Rocío move to?" -> "You live with your flatmate Rocío."
    (no place); "You must keep peanuts out of your snack." named no snack."""
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_ideas import names_nothing

    flat = said("26 May 2026", "Rocío moved out in April, and my cousin Almudena moved in.") + "\n" + \
        said("24 February 2026", "I live with my flatmate Rocío.")
    assert not unanswered("Who lives with me now?", "Your cousin Almudena moved in.", flat)
    assert unanswered("Who lives with me now?", "Your friend Marisol.", flat)
    assert told_line("Who lives with me now?", "I don't know.", flat) == \
        "You told me on 26 May 2026: “Rocío moved out in April, and my cousin Almudena moved in.”"
    assert unanswered("Where did Rocío move to?", "You live with your flatmate Rocío.", flat)
    assert told_line("Where did Rocío move to?", "I don't know.", flat) is None  # "in April" is no place
    leonor = said("11 May 2026", "Leonor moved to London in April for her master's.")
    assert not unanswered("Where does Leonor live now?", "London.", leonor)
    assert not unanswered("Where does Leonor live now?", "She lives in London now.", leonor)
    assert unanswered("Where does Leonor live now?", "Leonor lives with her friends.", leonor)
    twins = said("14 May 2026", "My sister Thembeka had twins last week.")
    assert not unanswered("How many babies did Thembeka have?", "Thembeka had twins last week.", twins)
    assert unanswered("How many babies did Thembeka have?", "I couldn't say how many babies.", twins)
    assert unanswered("What are the twins called?", "Your sister Thembeka had twins last week.", twins)
    named = twins + "\n" + said("20 May 2026", "The twins are called Lwandle and Sipho.")
    assert not unanswered("What are the twins called?", "Lwandle and Sipho.", named)
    son = said("20 May 2026", "Our son Adam was born on 11 May!")
    assert not unanswered("What's my son called?", "Your son is Adam.", son)
    dombra = said("2 June 2026", "I started learning the dombra.") + "\n" + \
        said("3 March 2026", "I teach maths at a school in Almaty.")
    assert told_line("What instrument am I learning?", "I don't know.", dombra) == \
        "You told me on 2 June 2026: “I started learning the dombra.”"
    assert told_line("What instrument am I learning?", "I don't know.",
                     said("2 June 2026", "I started learning the ropes at work.")) is None
    assert names_nothing("Can you suggest a snack for a long ride?", "You must keep peanuts out of your snack.",
                         "- allergy: peanuts (told 20 January 2026)")
    assert not names_nothing("Can you suggest a snack for a long ride?", "You must try dried mango.",
                             "- allergy: peanuts (told 20 January 2026)")


def test_names_are_read_in_any_alphabet():
    """Set AV, held out: "Where did Rocío move to?" was not read as a where-question about someone ("[A-Z][a-z]+" stopped
    at "í"); "My name is José" was remembered as "Jos"."""
    from panda.language.facts import extract_statements

    assert unanswered("Where did Rocío move to?", "You live with your flatmate Rocío.",
                      said("24 February 2026", "I live with my flatmate Rocío."))
    facts = {(f.attribute, f.value) for f in extract_statements("My name is José and my sister Zoë lives in Łódź.")}
    assert {("name", "José"), ("sister", "Zoë")} <= facts


def test_a_where_line_says_a_place_and_a_city_asked_is_where_the_thing_is():
    """Read over every earlier set's answers when the where-rule above came in: "Where are we going in August?" beside
    "We're going to Aqaba …" and "Where do I play chess now?" beside "I joined a chess club in April …" keep their
    lines; "Which city is Aroha's university in?" is answered by "… in Dunedin", not by "Aroha"."""
    from panda.pipeline.answer_checks import told_line

    aqaba = said("23 April 2026", "We're going to Aqaba for a week in August.")
    assert told_line("Where are we going in August?", "I don't know.", aqaba) == f"You told me on 23 April 2026: {aqaba[34:]}"
    chess = said("4 May 2026", "I joined a chess club in April, so I play over the board on Saturdays now.")
    assert told_line("Where do I play chess now?", "I don't know.", chess) == f"You told me on 4 May 2026: {chess[31:]}"
    aroha = "- daughter: Aroha (told 28 April 2026)\n" + \
        said("28 April 2026", "My daughter Aroha started university in Dunedin in February.")
    assert not unanswered("Which city is Aroha's university in?", "Aroha started university in Dunedin in February.", aroha)
    assert unanswered("Which city is Aroha's university in?", "Aroha.", aroha)
    assert unanswered("Where do I run?", "No running for six weeks.", said("1 May 2026", "I run along the canal."))


def test_a_count_is_no_place():
    """Set AW, held out: "Where is my pottery class?" quoted "I've cut my swimming to twice a week since I started a
    pottery class." ("to twice a week" read as a place)."""
    from panda.pipeline.answer_checks import told_line

    pottery = said("9 June 2026", "I've cut my swimming to twice a week since I started a pottery class.")
    assert told_line("Where is my pottery class?", "I don't know.", pottery) is None
    assert told_line("Where is my pottery class?", "I don't know.",
                     said("9 June 2026", "My pottery class is in the old mill.")) is not None


def test_an_age_is_said_of_the_one_asked_and_an_amount_asked_is_quoted_only_from_a_line_saying_one():
    """Set AW, held out: "How old is Gábor?" -> "Gábor is 76 years old." beside "My husband Gábor turned fifty" ("turned"
    was taken for a birth an age is worked out from); "How old is Ijapa?" -> "12" beside "the under-12 team" and "a
    tortoise called Ijapa"; "How much did I sell my scooter for?" quoted "I sold my scooter and now take the subway"."""
    from panda.pipeline.answer_checks import told_line

    gabor = "- partner: Gábor (told 9 June 2026)\n" + said("10 March 2026", "I swim three times a week.") + "\n" + \
        said("9 June 2026", "My husband Gábor turned fifty on Sunday.")
    assert unanswered("How old is Gábor?", "Gábor is 76 years old.", gabor)
    assert not unanswered("How old is Gábor?", "Gábor is 50.", gabor)
    assert not unanswered("How old is Gábor?", "Gábor is fifty years old.", gabor)
    ijapa = said("12 May 2026", "My son Obiora moved up to the under-12 team, so I coach them now.") + "\n" + \
        said("12 May 2026", "We got a tortoise called Ijapa last month.")
    assert unanswered("How old is Ijapa?", "Ijapa is 12 years old.", ijapa)
    # a birth's year still gives an age worked out from it, whether the one asked is named or not
    yui = said("2 May 2026", "My daughter Yui was born in 2019.")
    assert not unanswered("How old is Yui?", "Yui is 7.", yui)
    assert not unanswered("How old is my daughter?", "She is 7.", yui)
    scooter = said("23 June 2026", "I sold my scooter and now take the subway to work.")
    assert told_line("How much did I sell my scooter for?", "I don't know.", scooter) is None
    sold = said("23 June 2026", "I sold my scooter for 300 euros.")
    assert told_line("How much did I sell my scooter for?", "I don't know.", sold) == f"You told me on 23 June 2026: {sold[33:]}"
    # the user alone answers who they live with, as the line says it
    alone = said("23 June 2026", "My grandmother moved into a care home in May, so I live alone now.")
    assert not unanswered("Who do I live with now?", "You live alone now.", alone)
    assert unanswered("Who do I live with now?", "You live alone now.", scooter)


def test_ideas_keep_clear_of_what_caffeine_and_lactose_rule_out_and_a_denial_names_no_idea():
    """Set AW, held out: "Can you suggest a warm drink?" -> "Try tea." beside "I don't drink caffeine."; "Can you
    suggest a dessert?" -> "Try chocolate chip cookies." beside "diet: lactose intolerant"; "Can you suggest a
    breakfast?" -> "No gluten mentioned in the review." (kept: it named "mention")."""
    from panda.pipeline.answer_ideas import kept_request, names_nothing, pick

    caffeine = said("13 January 2026", "I don't drink caffeine.")
    assert pick(["Caffeine", "Tea", "Hot Chocolate"], "Can you suggest a warm drink?", caffeine) is None
    assert kept_request("Can you suggest a warm drink?", caffeine) == "Can you suggest a caffeine-free warm drink?"
    assert pick(["Green tea", "Rooibos tea"], "Can you suggest a warm drink?", caffeine) == "Try rooibos tea."
    coffee = said("13 January 2026", "I don't drink coffee.")  # coffee alone: tea stays
    assert pick(["Espresso", "Earl Grey tea"], "Can you suggest a warm drink?", coffee) == "Try Earl Grey tea."
    lactose = "- diet: lactose intolerant (told 24 March 2026)"
    assert pick(["Chocolate chip cookies", "Mango sorbet"], "Can you suggest a dessert?", lactose) == "Try mango sorbet."
    gluten = "- avoids: gluten (told 10 March 2026)"
    assert names_nothing("Can you suggest a breakfast?", "No gluten mentioned in the review.", gluten)
    assert names_nothing("Can you suggest a breakfast?", "There is no breakfast for you.", gluten)
    assert not names_nothing("Can you suggest a dessert?", "No-bake cheesecake.", gluten)


def test_set_ax_an_instrument_in_any_alphabet_a_kind_the_change_leaves_and_a_name_no_subject():
    """Set AX, held out: "What instrument do I play?" -> "I don't know" (the line "I play the đàn bầu in a folk band." was
    replaced by "I left the folk band in April and now play in a jazz trio.", and "the đàn" was read as no instrument);
    "What is Tuấn studying?" -> "Your brother Tuấn moved to Melbourne for university." (the line met the question by the
    name alone); "Try cheetos with almond butter." for a peanut allergy."""
    from panda.language.changes import other_part_asked
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_ideas import pick

    dan, trio = "I play the đàn bầu in a folk band.", "I left the folk band in April and now play in a jazz trio."
    assert other_part_asked("What instrument do I play?", trio, dan)  # the older line stays for the instrument
    assert not other_part_asked("What kind of band do I play in now?", trio, dan)
    assert not other_part_asked("What instrument do I play?", "I sold my guitar.", "I play guitar in a band.")
    assert told_line("What instrument do I play?", "I don't know.", said("3 March 2026", dan)) is not None
    tuan = "- brother: Tuấn (told 9 June 2026)\n" + said("9 June 2026", "My brother Tuấn moved to Melbourne for university.")
    assert unanswered("What is Tuấn studying?", "Your brother Tuấn moved to Melbourne for university.", tuan)
    assert not unanswered("What is Tuấn studying?", "Tuấn studies law.",
                          tuan + "\n" + said("9 June 2026", "Tuấn is studying law at Monash."))
    peanuts = "- allergy: peanuts (told 3 February 2026)"
    assert pick(["Cheetos with almond butter", "Apple slices"], "Can you suggest a snack?", peanuts) == "Try apple slices."


def test_set_ay_a_business_run_says_what_one_does_and_ideas_keep_clear_of_ice_cream_and_caffeine():
    """Set AY, held out: "What does Thiago do?" -> "I don't know" beside "My partner Thiago started a bakery called Pão
    Quente."; "Try banana ice cream." for a diabetic user; "Try caffeine." for a user who drinks no coffee."""
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_ideas import pick

    bakery = "- partner: Thiago (told 2 June 2026)\n" + \
        said("2 June 2026", "My partner Thiago started a bakery called Pão Quente.") + "\n" + \
        said("3 March 2026", "I'm a civil engineer in Recife.")
    assert told_line("What does Thiago do?", "I don't know.", bakery) == \
        "You told me on 2 June 2026: “My partner Thiago started a bakery called Pão Quente.”"
    assert not unanswered("What does Thiago do?", "Thiago runs a bakery called Pão Quente.", bakery)
    school = said("2 June 2026", "My daughter Lola started school in Leeds.")  # a school started is no job
    assert told_line("What does Lola do?", "I don't know.", school) is None
    # the user's own job is no line about someone else's (read over the earlier sets when the rule above came in)
    farm = said("5 February 2026", "My brother Abebe runs a coffee farm near Jimma.")
    assert told_line("What's my job?", "I don't know.", farm) is None
    assert told_line("What do I do for work?", "I don't know.", said("2 June 2026", "My husband Radu is a firefighter.")) \
        is None
    assert told_line("What's my job?", "I don't know.", said("2 June 2026", "I run a coffee farm near Jimma.")) is not None
    diabetic = "- diet: diabetic (told 10 February 2026)"
    assert pick(["Banana ice cream", "Baked apple with cinnamon"], "Can you suggest a dessert?", diabetic) == \
        "Try baked apple with cinnamon."
    coffee = said("3 March 2026", "I don't drink coffee.")
    assert pick(["Caffeine", "Chamomile tea"], "Can you suggest a warm drink?", coffee) == "Try chamomile tea."


def test_set_az_the_users_job_from_a_line_saying_one_what_is_done_from_a_line_saying_it_and_a_name_to_come():
    """Set AZ, held out: "What do I do for a living?" -> "Buran is twelve now and can't go on long walks anymore." (any
    line's words passed; replayed over the earlier sets, 16 such answers to "What do I do for work?" had passed, "You
    are vegetarian." among them); "What does Buran eat?" -> that line too; "What are the twins going to be called?" ->
    "Your wife Sanne is expecting twins in November." ("going to be called" was not read as a name asked)."""
    buran = said("12 May 2026", "Buran is twelve now and can't go on long walks anymore.") + "\n" + \
        said("12 May 2026", "I started teaching chess online on Wednesdays.")
    assert unanswered("What do I do for a living?", "Buran is twelve now and can't go on long walks anymore.", buran)
    job = buran + "\n" + said("24 February 2026", "I'm a chess coach in Almaty.")
    assert not unanswered("What do I do for a living?", "You're a chess coach in Almaty.", job)
    assert not unanswered("What do I do for work?", "A chess coach.", "- job: chess coach (told 24 February 2026)")
    assert not unanswered("What do I do for work?", "You drive a tram.", said("29 January 2026", "I drive a tram in Almaty."))
    assert unanswered("What do I do for work?", "Your husband is a firefighter.",  # someone else's job is not the user's
                      said("2 June 2026", "My husband Radu is a firefighter."))
    assert unanswered("What does Buran eat?", "Buran is twelve now and can't go on long walks anymore.", buran)
    assert not unanswered("What does Buran eat?", "Raw chicken.", said("2 May 2026", "Buran eats raw chicken every day."))
    assert not unanswered("What did I study?", "Physics.", said("2 May 2026", "I studied physics in Kano."))
    twins = said("26 May 2026", "My wife Sanne is expecting twins in November.")
    assert unanswered("What are the twins going to be called?", "Your wife Sanne is expecting twins in November.", twins)
    assert not unanswered("What is the baby going to be called?", "Mila.",
                          said("2 May 2026", "The baby is going to be called Mila."))


def test_set_ba_where_going_a_kind_done_a_sport_said_a_plans_month_and_a_place_that_is_no_one():
    """Set BA, held out: "Where is Tamati going to university?" -> "I don't know" beside "My nephew Tamati starts
    university in Wellington next month." ("going" had to be said); "When does Tamati start university?" got that line
    with no month; "What shifts do I work now?" -> "You work as a nurse …" beside "I changed to night shifts in April.";
    "What sport do I do now?" -> the change to mountain biking, taken for no sport; "Who is Aurélien marrying?" ->
    "Aurélien is getting married in Annecy in October." (a place taken for the one married)."""
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_dates import dated_answer

    tamati = said("9 June 2026", "My nephew Tamati starts university in Wellington next month.")
    unknown = "You don't know - you haven't told me where Tamati is going to university."
    assert told_line("Where is Tamati going to university?", unknown, tamati) == \
        "You told me on 9 June 2026: “My nephew Tamati starts university in Wellington next month.”"
    assert told_line("Where is Tamati going to university?", unknown, said("9 June 2026", "Tamati is going to be a doctor.")) \
        is None  # a line naming no place
    dated = tamati + " (next month: July 2026)"
    biking = said("9 June 2026", "I switched from waka ama to mountain biking because of my shoulder.")
    assert undated_answer("When does Tamati start university?", "You switched from waka ama to mountain biking.",
                          dated + "\n" + biking) == \
        "In July 2026 (you said: “My nephew Tamati starts university in Wellington next month.”)."
    assert dated_answer("Tamati starts university next month.", dated) == "Tamati starts university in July 2026."

    shifts = said("19 May 2026", "I changed to night shifts in April.") + "\n" + \
        said("13 January 2026", "I work as a nurse at a hospital in Novi Sad.")
    assert unanswered("What shifts do I work now?", "You work as a nurse at a hospital in Novi Sad now.", shifts)
    assert not unanswered("What shifts do I work now?", "You work night shifts now.", shifts)
    assert told_line("What shifts do I work now?", "I don't know.", shifts) == \
        "You told me on 19 May 2026: “I changed to night shifts in April.”"
    bank = said("24 April 2026", "My wife Doina started a new job at a bank.")  # a bank, not which one (set AR)
    assert told_line("Which bank does Doina work at?", "I don't know.", bank) is None
    motorbike = said("18 May 2026", "I've now saved 20,000 rand for the motorbike.")
    assert told_line("What motorbike do I want?", "I don't know.", motorbike) is None

    assert not unanswered("What sport do I do now?", "You switched from waka ama to mountain biking.", biking)

    wedding = "- brother: Aurélien (told 2 June 2026)\n" + \
        said("2 June 2026", "My brother Aurélien is getting married in Annecy in October.")
    assert unanswered("Who is Aurélien marrying?", "Aurélien is getting married in Annecy in October.", wedding)
    chloe = said("2 June 2026", "My brother Aurélien is marrying Chloé in Annecy in October.")
    assert not unanswered("Who is Aurélien marrying?", "Aurélien is marrying Chloé.", chloe)



def test_set_bb_what_holds_now_a_birthday_from_its_relative_day_and_a_when_never_said():
    """Set BB, held out: "How do I commute now?" -> "You don't take the train anymore." (what no longer holds, beside "I
    bought a scooter, so I don't take the train anymore."); "When was Naledi's birthday?" -> "… on 12 May 2026." (the
    day said, beside "My daughter Naledi turned seven yesterday." (yesterday: 11 May 2026)); "When is Kaho moving?" ->
    the model's "I don't know" overruled by "My sister Kaho is moving to Fukuoka.", which says no time."""
    from panda.pipeline.answer_changes import denied_only
    from panda.pipeline.answer_dates import days_said

    scooter = said("21 April 2026", "I bought a scooter, so I don't take the train anymore.")
    assert denied_only("How do I commute now?", "You don't take the train anymore.", scooter) == \
        "You told me on 21 April 2026 that you bought a scooter, so you don't take the train anymore."
    assert denied_only("How do I commute now?", "You ride your scooter.", scooter) is None
    assert denied_only("Do I still take the train?", "You don't take the train anymore.", scooter) is None
    assert denied_only("How do I commute now?", "You don't take the train anymore.",
                       said("21 April 2026", "I don't take the train anymore.")) is None  # the line says no more

    naledi = said("12 May 2026", "My daughter Naledi turned seven yesterday.") + " (yesterday: 11 May 2026)"
    assert undated_answer("When was Naledi's birthday?", "Naledi's birthday was on 12 May 2026.", naledi) == \
        "On 11 May 2026 (you said: “My daughter Naledi turned seven yesterday.”)."
    assert undated_answer("When was Naledi's birthday?", "On 11 May 2026.", naledi) is None
    assert not unanswered("When was Naledi's birthday?", "On 11 May 2026 (you said: “…”).", naledi)
    assert unanswered("When was Naledi's birthday?", "Naledi's birthday was on 12 May 2026.", naledi)

    kaho = said("21 April 2026", "My sister Kaho is moving to Fukuoka.")
    unknown = "You don't know - you haven't told me when Kaho is moving."
    assert undated_answer("When is Kaho moving?", unknown, kaho) is None
    assert undated_answer("When is Kaho moving?", unknown, said("21 April 2026", "My sister Kaho is moving to Fukuoka "
                                                                                 "in August.")) is not None
    # a range's first day has its month after it (this had raised StopIteration)
    assert days_said("between 9 and 10 May 2026") == {("9", "may"), ("10", "may")}


def test_five_ideas_are_asked_for_so_that_one_keeps_the_users_diet_more_often():
    """Set BB, held out: a diabetic user's dessert got cookies, ice cream, pie and muffins in two rounds of three ideas,
    and the answer was "You can't recommend a dessert"; five ideas a round give the rules more to pick from."""
    from pathlib import Path

    import yaml

    from panda.llm.schemas import Ideas
    from panda.pipeline.answer_ideas import pick

    ideas = ["Cinnamon apple pie", "Chocolate chip cookies", "Vanilla ice cream", "Cinnamon muffins", "Fresh berries"]
    assert Ideas(ideas=ideas).ideas == ideas
    assert pick(ideas, "Can you suggest a dessert?", "- diet: diabetic (told 3 March 2026)") == "Try fresh berries."
    prompt = yaml.safe_load((Path(__file__).parents[2] / "panda/llm/prompts/suggest.yaml").read_text())
    assert "five" in prompt["system"] and all(len(e["assistant"]["ideas"]) == 5 for e in prompt["examples"])


def test_set_bc_a_count_said_anew_who_did_one_thing_a_baby_unnamed_and_a_when_about_their_thing():
    """Set BC, held out: "How many cats do I have now?" -> "You have two cats now." beside "We adopted a third cat, a
    kitten called Zuri."; "Who moved in with us?" -> "I don't know" beside "My mother moved in with us in April." (one
    word asked); "What is the baby's name?" -> "Your wife Mele had a baby boy …" (the wife's name); "When is choir
    practice now?" -> "On 19 May 2026." (the day said: a question saying neither "I" nor "my" went unguarded)."""
    from panda.pipeline.answer_changes import count_now
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.asked_about import told_about

    cats = said("5 May 2026", "We adopted a third cat, a kitten called Zuri.") + "\n" + \
        said("20 January 2026", "I have two cats.")
    assert count_now("How many cats do I have now?", "You have two cats now.", cats) == \
        "Three - you told me on 5 May 2026 that you adopted a third cat, a kitten called Zuri."
    assert count_now("How many cats do I have now?", "You have three cats.", cats) is None

    mother = said("5 May 2026", "My mother moved in with us in April.") + "\n" + \
        said("5 May 2026", "We adopted a third cat, a kitten called Zuri.")
    assert told_line("Who moved in with us?", "I don't know - you haven't told me that.", mother) == \
        "You told me on 5 May 2026: “My mother moved in with us in April.”"
    assert told_line("Who moved in with us?", "I don't know.", said("5 May 2026", "We moved in May.")) is None

    baby = said("19 May 2026", "My wife Mele had a baby boy last week.")
    assert unanswered("What is the baby's name?", "Your wife Mele had a baby boy last week.", baby)
    assert not unanswered("What is the baby's name?", "Sione.", said("19 May 2026", "My wife Mele had a baby boy, Sione."))
    # a relation asked is read from the lines that say it (its words were compared with stems, and matched none)
    assert not unanswered("What is my wife's name?", "Your wife is Mele.", baby)

    choir = said("19 May 2026", "Choir practice moved to Saturday mornings.")
    assert told_about("When is choir practice now?", choir)
    assert not told_about("When is the World Cup final?", said("19 May 2026", "I love football."))


def test_set_bd_when_a_thing_is_never_said_is_not_the_day_its_line_was_said():
    """Set BD, held out: "When is the Accra marathon?" -> "… scheduled for 2 June 2026." (the day "My husband Kwadwo is
    training for the Accra marathon." was said) was turned into that line, quoted, as was "When does Kian start medical
    school?"; set BB's "When is Kaho moving?" kept its "I don't know" from undated_answer but told_line quoted the line."""
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_dates import time_unsaid

    marathon = said("2 June 2026", "My husband Kwadwo is training for the Accra marathon.")
    assert undated_answer("When is the Accra marathon?", "The Accra marathon is scheduled for 2 June 2026.", marathon) == \
        "I don't know when - you told me on 2 June 2026: “My husband Kwadwo is training for the Accra marathon.”"
    kaho = said("21 April 2026", "My sister Kaho is moving to Fukuoka.")
    assert told_line("When is Kaho moving?", "You don't know - you haven't told me when Kaho is moving.", kaho) is None
    assert time_unsaid("When is Kaho moving?", "My sister Kaho is moving to Fukuoka.")
    for timed in ("I teach chess online on Wednesdays.", "I walk him in the evenings now.", "We move in August.",
                  "It's on Saturday afternoons."):
        assert not time_unsaid("When do I teach chess online?", timed), timed
    assert not time_unsaid("When did Kaho move?", "My sister Kaho moved to Fukuoka.")  # something done: the day said
    assert time_unsaid("When will Kaho move?", "My sister Kaho is moving to Fukuoka.")
    # an "I don't know" beside a line naming the day is still overruled (BB's rule had read dates and months only)
    choir = said("19 May 2026", "Choir practice moved to Saturday mornings.")
    assert undated_answer("When is choir practice now?", "I don't know.", choir) == \
        "You told me on 19 May 2026: “Choir practice moved to Saturday mornings.”"


def test_set_be_pets_named_a_farm_grows_a_change_one_can_no_longer_do_and_a_why_never_said():
    """Set BE, held out: "How many pets do I have now?" -> "You have a parrot and a dog now." became "I don't know" (no
    figure); "What do I grow?" beside "I run a small coffee farm …" stayed "I don't know"; "What water sport do I do
    now?" -> "You surf on Sunday mornings." beside "After my knee surgery I can't surf, so I've taken up stand-up
    paddleboarding."; "Why did my mother move in?" -> the line said again, which gives no reason."""
    from panda.pipeline.answer_changes import stale_value_said
    from panda.pipeline.answer_checks import told_line
    from panda.pipeline.answer_lines import unreasoned_answer

    pets = said("13 October 2026", "We adopted a dog from the shelter, so now we have a parrot and a dog.")
    assert not unanswered("How many pets do I have now?", "You have a parrot and a dog now.", pets)
    assert unanswered("How many pets do I have now?", "You have a parrot and a cat now.", pets)  # no line says a cat
    assert unanswered("How many pets do I have now?", "You have pets.", pets)

    farm = said("13 January 2026", "I run a small coffee farm near Holualoa.") + "\n" + \
        said("13 January 2026", "I'm allergic to tree nuts.")
    assert told_line("What do I grow?", "I don't know - you haven't told me that.", farm) == \
        "You told me on 13 January 2026: “I run a small coffee farm near Holualoa.”"
    assert told_line("What do I grow?", "I don't know.", said("1 May 2026", "I run a small bakery in Hilo.")) is None

    surf = said("19 May 2026", "After my knee surgery I can't surf, so I've taken up stand-up paddleboarding.") + "\n" + \
        said("13 January 2026", "I surf on Sunday mornings.")
    assert stale_value_said("What water sport do I do now?", "You surf on Sunday mornings.", surf) == \
        "You told me on 19 May 2026 that after your knee surgery you've taken up stand-up paddleboarding."
    assert stale_value_said("What water sport do I do now?", "You've taken up stand-up paddleboarding.", surf) is None

    mother = said("6 October 2026", "My mother Sunanda moved in with us in September.") + "\n" + \
        said("3 March 2026", "I'm a software tester in Nashik.")
    unknown = "I don't know why - you told me on 6 October 2026: “My mother Sunanda moved in with us in September.”"
    assert unreasoned_answer("Why did my mother move in?", "Your mother Sunanda moved in with you in September.",
                             mother) == unknown
    assert unreasoned_answer("Why did my mother move in?", "She wanted to be near her grandchildren.", mother) == unknown
    assert told_line("Why did my mother move in?", unknown, mother) is None  # not turned back into the line
    reason = said("6 October 2026", "My mother moved in with us after her fall, to be near us.")
    assert unreasoned_answer("Why did my mother move in?", "After her fall.", reason) is None
    assert unreasoned_answer("Why did I move to Salta?", "For a job.", said("1 May 2026", "I moved to Salta for a new job.")) \
        is None
    assert unreasoned_answer("When did my mother move in?", "In September.", mother) is None


def test_set_be_a_vegan_is_asked_for_plant_based_ideas_and_a_pizza_holds_cheese():
    """Set BE, held out: "Can you suggest a lunch?" for a vegan: asked again for "a vegan lunch", the 0.5B model gave
    grilled chicken with tofu and "Vegetarian pizza with mushrooms", which was picked; asked for "a plant-based lunch" it
    gave salads and stir-fries (three tries of three)."""
    from panda.pipeline.answer_ideas import kept_request, pick

    vegan = "- diet: vegan (told 10 February 2026)"
    assert kept_request("Can you suggest a lunch?", vegan) == "Can you suggest a plant-based lunch?"
    assert kept_request("Can you suggest a dinner?", "- diet: vegetarian (told 10 February 2026)") == \
        "Can you suggest a vegetarian dinner?"
    assert pick(["Vegetarian pizza with mushrooms", "Vegetable stir-fry with tofu"], "Can you suggest a lunch?", vegan) == \
        "Try vegetable stir-fry with tofu."
    assert pick(["Spinach lasagne"], "Can you suggest a dinner?", "- allergy: lactose (told 1 May 2026)") is None


def test_set_bf_a_class_said_of_but_not_named_and_a_length_never_said():
    """Set BF, held out: "What evening class am I taking?" -> "You moved squash to Friday mornings because of a new evening
    class." (which says of one, not which); "How long is Tuva's art course?" -> "… 12 months long." (never said)."""
    from panda.pipeline.answer_lines import kind_unsaid

    squash = said("7 July 2026", "I moved squash to Friday mornings because of a new evening class.")
    assert kind_unsaid("What evening class am I taking?", "You moved squash to Friday mornings because of a new evening "
                       "class.", squash)
    pottery = said("7 July 2026", "I moved squash to Friday mornings because of a new pottery evening class.")
    assert not kind_unsaid("What evening class am I taking?", "You moved squash to Friday mornings because of a new "
                           "pottery evening class.", pottery)
    tuva = said("23 June 2026", "My daughter Tuva got a place at art school in Trondheim.")
    assert unanswered("How long is Tuva's art course?", "The art course for Tuva is 12 months long.", tuva)
    assert not unanswered("How long is my commute?", "About 40 minutes.",
                          said("2 May 2026", "I cycle to work, it takes about 40 minutes."))


def test_set_bg_what_was_finished_is_no_answer_about_now():
    """Set BG, held out: "What language am I learning now?" -> "You are learning Spanish now." beside "I finished Spanish
    and started Korean lessons instead."."""
    from panda.pipeline.answer_changes import stale_value_said

    korean = said("26 May 2026", "I finished Spanish and started Korean lessons instead.")
    assert stale_value_said("What language am I learning now?", "You are learning Spanish now.", korean) == \
        "You told me on 26 May 2026 that you started Korean lessons instead."
    assert stale_value_said("What language am I learning now?", "You are learning Korean now.", korean) is None


def test_set_bg_a_where_answered_by_the_things_names_and_a_university_by_a_degree():
    """Set BG, held out: "Where did we get the guinea pigs?" -> "You got two guinea pigs, Tut and Lille." (their names, no
    place) and "What is Caio's university?" -> "Your partner Caio started a PhD in physics." (a degree, no university)."""
    pigs = said("9 June 2026", "Snuppe died in May, and we got two guinea pigs, Tut and Lille.")
    assert unanswered("Where did we get the guinea pigs?", "You got two guinea pigs, Tut and Lille.", pigs)
    shop = said("9 June 2026", "We got two guinea pigs, Tut and Lille, from a pet shop in Odense.")
    assert not unanswered("Where did we get the guinea pigs?", "You got Tut and Lille in Odense.", shop)
    assert not unanswered("Where did we get the guinea pigs?", "From a pet shop in Odense.", shop)
    caio = said("21 July 2026", "My partner Caio started a PhD in physics.")
    assert unanswered("What is Caio's university?", "Your partner Caio started a PhD in physics.", caio)
    assert unanswered("Which university is Caio at?", "Caio started a PhD in physics in Pelotas.",
                      said("21 July 2026", "My partner Caio started a PhD in physics in Pelotas."))
    named = said("21 July 2026", "My partner Caio started a PhD in physics at the Federal University of Pelotas.")
    assert not unanswered("What is Caio's university?", "The Federal University of Pelotas.", named)
    assert not unanswered("Which university is Caio at?", "The Federal University of Pelotas.", named)


def test_set_bh_who_someone_is_from_the_line_naming_them_as_a_grandson():
    """Set BH, held out: "Who is Emir?" -> "No prior memory matched this query." beside "My grandson Emir was born in
    August.": a grandson, a niece, a stepfather are the user's people as a sister is."""
    from panda.language.facts import extract_statements
    from panda.pipeline.answer_checks import told_line

    emir = said("5 May 2026", "My grandson Emir was born in August.")
    assert told_line("Who is Emir?", "No prior memory matched this query.", emir) == \
        "You told me on 5 May 2026: “My grandson Emir was born in August.”"
    assert told_line("Who is Emir?", "I don't know.", said("5 May 2026", "Emir was born in August.")) is None
    assert [(s.attribute, s.value) for s in extract_statements("My grandson Emir was born in August.")] == \
        [("grandson", "Emir")]
    assert told_line("Who is Lusia?", "I don't know.", said("5 May 2026", "My niece Lusia is studying nursing.")) == \
        "You told me on 5 May 2026: “My niece Lusia is studying nursing.”"


def test_sets_bf_bg_an_older_line_said_back_when_a_later_one_tells_the_change():
    """Set BF, held out: "When do I play squash now?" -> "You play squash on Tuesday evenings." beside the later "I moved
    squash to Friday mornings because of a new evening class."; set BG: "How often do I volunteer at the shelter now?"
    -> "… on Saturday mornings now." beside the later "I've cut my shelter volunteering back to one Saturday a month."."""
    from panda.pipeline.answer_changes import repeated_before_change

    squash = said("7 July 2026", "I moved squash to Friday mornings because of a new evening class.") + "\n" + \
        said("3 February 2026", "I play squash on Tuesday evenings.")
    assert repeated_before_change("When do I play squash now?", "You play squash on Tuesday evenings.", squash) == \
        "You told me on 7 July 2026 that you moved squash to Friday mornings because of a new evening class."
    assert repeated_before_change("When do I play squash now?", "You play squash on Friday mornings.", squash) is None
    assert repeated_before_change("When did I play squash before?", "On Tuesday evenings.", squash) is None
    shelter = said("21 July 2026", "I've cut my shelter volunteering back to one Saturday a month.") + "\n" + \
        said("3 March 2026", "I volunteer at a dog shelter on Saturday mornings.")
    assert repeated_before_change("How often do I volunteer at the shelter now?", "You volunteer at a dog shelter on "
                                  "Saturday mornings now.", shelter) == \
        "You told me on 21 July 2026 that you've cut your shelter volunteering back to one Saturday a month."
    # a later change to something else that only shares a day is none (both may hold)
    sundays = said("2 June 2026", "I moved my piano lessons to Sundays.") + "\n" + \
        said("3 March 2026", "I sing in a choir on Sundays.")
    assert repeated_before_change("What do I do on Sundays now?", "You sing in a choir on Sundays.", sundays) is None
    # the older line told after the change is no older line
    later = said("3 March 2026", "I moved squash to Friday mornings.") + "\n" + \
        said("7 July 2026", "I play squash on Tuesday evenings again.")
    assert repeated_before_change("When do I play squash now?", "You play squash on Tuesday evenings.", later) is None


def test_set_be_a_where_answered_by_a_day_has_no_place():
    """Set BE, held out: "Where do I volunteer?" -> "You moved your volunteering to Saturdays because of work."."""
    moved = said("16 June 2026", "I moved my volunteering to Saturdays because of work.")
    assert unanswered("Where do I volunteer?", "You moved your volunteering to Saturdays because of work.", moved)


def test_set_bf_a_denial_in_words_never_said_beside_the_one_change_line():
    """Set BF, held out: "What do I do on weekends now?" -> "You can't do anything on weekends now." (FAIL), beside "I
    broke my wrist, so I've switched from skiing to hiking for now."."""
    from panda.pipeline.answer_changes import denied_only

    wrist = said("23 June 2026", "I broke my wrist, so I've switched from skiing to hiking for now.")
    assert denied_only("What do I do on weekends now?", "You can't do anything on weekends now.", wrist) == \
        "You told me on 23 June 2026 that you broke your wrist, so you've switched to hiking for now."
    # two changes: which one is meant is no guard's to say
    two = wrist + "\n" + said("2 July 2026", "I switched to oat milk.")
    assert denied_only("What do I do on weekends now?", "You can't do anything on weekends now.", two) is None
    # a denial a line holds the words of is the model's (or the first rule's)
    assert denied_only("What do I do on weekends now?", "You don't ski anymore.", wrist) is None


def test_set_bi_a_question_about_someone_named_answered_about_the_user():
    """Set BI, held out: "What car does Xiaoyu drive?" -> "You drive a taxi." (the user's line "I sold my noodle stall and
    now drive a taxi."), and from the earlier sets' logs "Where is Renzo going to university?" -> "You are going to
    university in Lima in March." (the nephew's line)."""
    from panda.pipeline.answer_checks import told_line

    lines = said("2 June 2026", "My daughter Xiaoyu passed her driving test in May.") + "\n" + \
        said("2 June 2026", "I sold my noodle stall and now drive a taxi.")
    assert unanswered("What car does Xiaoyu drive?", "You drive a taxi.", lines)
    assert not unanswered("What car does Xiaoyu drive?", "Xiaoyu drives a Kia.",
                          lines + "\n" + said("3 June 2026", "Xiaoyu bought a Kia."))
    renzo = said("12 May 2026", "My nephew Renzo is starting university in Lima in March.")
    assert unanswered("Where is Renzo going to university?", "You are going to university in Lima in March.", renzo)
    assert told_line("Where is Renzo going to university?", "I don't know - you haven't told me that.", renzo) == \
        "You told me on 12 May 2026: “My nephew Renzo is starting university in Lima in March.”"
    # a question the user asks about themselves and someone may be answered about the user
    assert not unanswered("Where did Nikau and I go?", "You went to Rotorua.",
                          said("2 May 2026", "Nikau and I went to Rotorua."))


def test_set_bi_driving_a_taxi_is_a_job_not_a_change_of_how_one_gets_about():
    """Set BI, held out: "I sold my noodle stall and now drive a taxi." took "I cycle to the market every morning." out
    of the context of "How do I get to the market?" (read as a change from cycling)."""
    from panda.language.changes import reports_change_of

    taxi = "I sold my noodle stall and now drive a taxi."
    assert not reports_change_of(taxi, "I cycle to the market every morning.")
    assert reports_change_of(taxi, "I run a noodle stall in Kunming.")
    assert reports_change_of("I sold my bike and now drive to work.", "I cycle to work every day.")


def test_set_bj_what_is_done_instead_of_ends_it_and_a_place_opened_is_a_business():
    """Set BJ, held out: "Do I still run every morning?" -> "You still run every morning." beside "I hurt my ankle, so I
    swim instead of running now."; "What is my business now?" -> "You don't know …" beside "I sold the tour boat and
    opened a small restaurant."."""
    from panda.pipeline.answer_changes import still_ended, told_now
    from panda.pipeline.answer_checks import told_line

    ankle = said("2 June 2026", "I hurt my ankle, so I swim instead of running now.")
    assert still_ended("Do I still run every morning?", "You still run every morning.", ankle) == \
        "No - you told me on 2 June 2026 that you hurt your ankle, so you swim instead of running now."
    assert still_ended("Do I still swim?", "Yes, you still swim.", ankle) is None  # what is done, not what it replaced
    boat = said("30 June 2026", "I sold the tour boat and opened a small restaurant.") + "\n" + \
        said("24 February 2026", "I practise tai chi by the river every morning.")
    told = told_line("What is my business now?", "You don't know - you haven't told me your business now.", boat)
    assert told == "You told me on 30 June 2026: “I sold the tour boat and opened a small restaurant.”"
    assert told_now("What is my business now?", told) == "You told me on 30 June 2026 that you opened a small restaurant."
    assert told_line("What is my business now?", "I don't know.",
                     said("24 February 2026", "I practise tai chi by the river every morning.")) is None


def test_set_bj_a_consequence_is_no_reason_by_the_river_is_a_place_and_a_hint_said_back_is_no_idea():
    """Set BJ, held out: "Why did my sheepdog die?" -> the line "One of my sheepdogs died in February, so now I have
    two." (what followed, not why); "Where do I practise tai chi?" -> "I don't know" beside "I practise tai chi by the
    river every morning."; "Can you suggest a dinner for my guests?" -> the validator's hint said back."""
    from panda.pipeline.answer_ideas import names_nothing
    from panda.pipeline.answer_lines import unreasoned_answer
    from panda.pipeline.said_words import reason_unsaid

    dogs = said("19 May 2026", "One of my sheepdogs died in February, so now I have two.")
    assert reason_unsaid("Why did my sheepdog die?", "One of my sheepdogs died in February, so now I have two.")
    assert unreasoned_answer("Why did my sheepdog die?", "The sheepdog died in February, so now you have two sheepdogs.",
                             dogs) == "I don't know why - you told me on 19 May 2026: “One of my sheepdogs died in " \
                                     "February, so now I have two.”"
    assert not reason_unsaid("Why did I take up kayaking?", "I can't surf, so I've taken up kayaking.")
    river = said("24 February 2026", "I practise tai chi by the river every morning.")
    assert not unanswered("Where do I practise tai chi?", "You practise tai chi by the river every morning.", river)
    assert unanswered("Where do I practise tai chi?", "You practise tai chi by the time you wake up.", river)
    hint = "the suggestion names what the user must keep clear of (allergy: walnuts). Suggest something without it"
    walnuts = "- allergy: walnuts (told 13 January 2026)"
    assert names_nothing("Can you suggest a dinner for my guests?", "The suggestion names what the user must keep clear "
                         "of (allergy: walnuts). Suggest something without it.", walnuts, hint)
    assert not names_nothing("Can you suggest a dinner for my guests?", "Try grilled trout with potatoes.", walnuts, hint)


def test_set_bj_what_was_so_before_an_event_the_question_names():
    """Set BJ, held out: "How did I get to work before I bought the car?" -> "You drive to work now before you bought the
    car.", beside "I bought an electric car, so I drive to work now." and the older "I take the bus to work."."""
    from panda.pipeline.answer_lines import before_event

    lines = said("9 June 2026", "I bought an electric car, so I drive to work now.") + "\n" + \
        said("3 February 2026", "I'm lactose intolerant.") + "\n" + said("3 February 2026", "I take the bus to work.")
    q = "How did I get to work before I bought the car?"
    assert before_event(q, "You drive to work now before you bought the car.", lines) == \
        "You told me on 3 February 2026: “I take the bus to work.”"
    assert before_event(q, "You took the bus.", lines) is None  # the answer says it
    assert before_event(q, "I don't know.", said("9 June 2026", "I take the bus to work.")) is None  # no event told
