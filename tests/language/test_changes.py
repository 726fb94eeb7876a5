"""Which later statement changes which earlier one (language/changes.py): pure rules over plain text."""

from panda.language.changes import asked_stems, other_part_asked, reports_change_of


def test_a_new_value_of_a_one_valued_attribute_changes_the_older_though_no_word_is_shared():
    """Set AI, held out: "I got promoted to test lead in March." left "I'm a software tester at a bank in Ghent."
    standing, and "What's my role at work now?" was answered from it. Both state the user's job (facts.extract_statements),
    which has one value; so do a residence moved and a job told by its employer."""
    assert reports_change_of("I got promoted to test lead in March.", "I'm a software tester at a bank in Ghent.")
    assert reports_change_of("Ebba and I moved to Uddevalla in March.", "We live in Gothenburg.")
    assert reports_change_of("Since April I've been working at a children's hospital instead.",
                             "I work as a dental hygienist at a practice in Lyon.")
    # a different attribute, or a statement of none, is no change of it
    assert not reports_change_of("I got promoted to test lead in March.", "I'm a vegetarian.")
    assert not reports_change_of("I got promoted to test lead in March.", "I live in Ghent.")
    assert not reports_change_of("Now I'm learning to knit.", "I'm a nurse.")
    # the same attribute with no change word is no change: "I'm a nurse." beside "I'm a mother of two." says no job anew
    assert not reports_change_of("I'm a charge nurse.", "I'm a software tester.")


def test_a_place_asked_stays_with_the_older_statement_after_a_promotion():
    """"Which city do I work in?" asks after the part of "I'm a software tester at a bank in Ghent." that a promotion
    leaves alone; "What's my role at work now?" asks after the part it changes."""
    newer, older = "I got promoted to test lead in March.", "I'm a software tester at a bank in Ghent."
    assert other_part_asked("Which city do I work in now?", newer, older)
    assert not other_part_asked("What's my role at work now?", newer, older)
    assert not other_part_asked("What do I do for a living now?", newer, older)


def test_asked_stems_are_what_a_question_asks_about():
    """"Which city is our new house in?" asks about the city and the house, not about "which", "is" or "our"."""
    assert asked_stems("Which city is our new house in?") == {"city", "new", "hous"}
    assert asked_stems("What do I usually do on Monday?") == set()  # how often and when: nothing asked about


def test_a_workplace_named_by_what_it_is_answers_where_and_the_city_stays_for_which_city():
    """Set AK, held out: "Where do I work now?" beside "I work as a dental hygienist at a practice in Lyon." and "Since
    April I've been working at a children's hospital instead." kept the older line for its city and was answered from
    it. The change names a place by what it is: a question asking where asks after it; one asking the city does not."""
    newer = "Since April I've been working at a children's hospital instead."
    older = "I work as a dental hygienist at a practice in Lyon."
    assert not other_part_asked("Where do I work now?", newer, older)
    assert other_part_asked("Which city do I work in now?", newer, older)
    # a time is no place: "at the moment" names none
    assert other_part_asked("Where do I work now?", "At the moment I'm working nights instead.", older)


def test_a_thing_moved_to_a_new_day_and_a_place_the_older_line_names_for_where():
    """Set AM, held out: "When is my trip to Japan?" -> "… in October." beside "We moved the Japan trip to next April."
    ("moved … to" with three words between marked no change); "Where do I run?" -> "No running for six weeks." (the
    river of "I run three times a week along the river." lost to the pause, which says no place)."""
    older = "I'm saving for a trip to Japan in October."
    assert reports_change_of("We moved the Japan trip to next April.", older)
    assert not other_part_asked("When is my trip to Japan?", "We moved the Japan trip to next April.", older)
    pause, run = "I sprained my ankle, so no running for six weeks.", "I run three times a week along the river."
    assert other_part_asked("Where do I run?", pause, run)
    assert not other_part_asked("How often do I run?", pause, run)


def test_a_change_cut_to_a_new_amount_and_a_kind_read_as_written():
    """Set AW, held out: "I've cut my swimming to twice a week …" left "I swim three times a week." standing (answer:
    three); "I sold my scooter and now take the subway to work." replaced "My grandmother moved into a care home …, so I
    live alone now." (the stem of "care" is that of "car", a way of travel like the scooter), and "Who do I live with
    now?" was answered from the scooter line."""
    assert reports_change_of("I've cut my swimming to twice a week since I started a pottery class.",
                             "I swim three times a week.")
    assert not reports_change_of("I sold my scooter and now take the subway to work.",
                                 "My grandmother moved into a care home in May, so I live alone now.")
    assert reports_change_of("The clinic moved, so I take the train now.", "I cycled to the clinic.")
    assert reports_change_of("I stopped driving and now take the bus.", "I drove to the office.")


def test_a_home_bought_and_moved_to_changes_where_the_user_lives():
    """Set BB, held out: "We bought a house in Kosshy and moved there in May." left "My wife Aizhan and I live in a flat
    near the river." standing, and "Where do I live now?" got the flat."""
    from panda.language.changes import reports_change_of
    from panda.language.facts import extract_statements

    moved = "We bought a house in Kosshy and moved there in May."
    assert reports_change_of(moved, "My wife Aizhan and I live in a flat near the river.")
    assert [(s.attribute, s.value) for s in extract_statements(moved)] == [("residence", "Kosshy")]
    assert not extract_statements("We bought a house in Spain.")  # a house bought is not one lived in
    assert not reports_change_of("My sister bought a house in Leeds.", "My wife Aizhan and I live in a flat near the river.")


def test_a_job_no_list_holds_is_read_from_one_who_does_with_where_it_is_done():
    """Set BD, held out: "I'm a carpet restorer in Yazd." made no fact (the job list has no restorer), and "What do I do
    for a living?" found no line to answer from. One who does ("-er", "-or", "-ist", "-ian") said with where is a job;
    one who is ("a stranger in Paris", "a single mother in Leeds") is not."""
    from panda.language.facts import extract_statements

    def jobs(text):
        return [s.value for s in extract_statements(text) if s.attribute == "job"]

    assert jobs("I'm a carpet restorer in Yazd.") == ["carpet restorer"]
    assert jobs("I'm a beekeeper near Oslo.") == ["beekeeper"]
    for not_a_job in ("I'm a stranger in Paris.", "I'm a single mother in Leeds.", "I'm a vegetarian in Lyon.",
                      "I'm a keen runner in Leeds.", "I'm a tourist in Rome.", "I'm a carpet restorer."):
        assert not jobs(not_a_job), not_a_job


def test_a_day_moved_to_is_no_place_and_a_guide_is_a_job():
    """Set BE, held out: "Where do I volunteer?" lost "I volunteer at a turtle rescue on Thursdays." to "I moved my
    volunteering to Saturdays because of work." ("to Saturdays" was read as a place the change names), and "I'm a tour
    guide in Malindi." made no job fact."""
    from panda.language.changes import other_part_asked
    from panda.language.facts import extract_statements

    older, newer = "I volunteer at a turtle rescue on Thursdays.", "I moved my volunteering to Saturdays because of work."
    assert reports_change_of(newer, older)
    assert other_part_asked("Where do I volunteer?", newer, older)
    assert not other_part_asked("Which day do I volunteer now?", newer, older)
    assert not other_part_asked("Where do I volunteer?", "I moved my volunteering to Mombasa.", older)
    assert [(s.attribute, s.value) for s in extract_statements("I'm a tour guide in Malindi.")] == [("job", "tour guide")]
    assert [(s.attribute, s.value) for s in extract_statements("I'm a security guard.")] == [("job", "security guard")]


def test_a_new_job_said_with_a_move_changes_where_the_user_works():
    """Set BD, held out: "I moved to Salta in March for a new job at a radio station." made only a residence fact, so it
    changed nothing of "I'm a sound engineer in Rosario.", and "Where do I work now?" was answered "You work at Rosario
    now." A new job's place is the user's employer, its title their job; someone else's new job is not theirs."""
    from panda.language.facts import extract_statements

    def facts(text):
        return [(s.attribute, s.value) for s in extract_statements(text) if s.attribute in ("job", "employer")]

    moved = "I moved to Salta in March for a new job at a radio station."
    assert facts(moved) == [("employer", "radio station")]
    assert facts("I got a new job as deputy head at a school in Swansea.") == [("job", "deputy head"), ("employer", "school")]
    assert facts("I started a new job at Google in May.") == [("employer", "Google")]
    assert facts("My husband got a new job at the bank.") == []
    assert reports_change_of(moved, "I'm a sound engineer in Rosario.")
    assert not other_part_asked("Where do I work now?", moved, "I'm a sound engineer in Rosario.")


def test_a_thing_moved_to_a_new_time_is_its_change_and_a_time_the_change_leaves_keeps_the_older_line():
    """Set BF, held out: "When do I play squash now?" -> "You play squash on Tuesday evenings." beside "I moved squash
    to Friday mornings because of a new evening class." (the change word took "squash" with it, so the lines shared
    nothing); "What do I do on weekends now?" lost "I go cross-country skiing on weekends." to "I broke my wrist, so I've
    switched from skiing to hiking for now." and was answered "You can't do anything on weekends now."."""
    squash, tuesday = "I moved squash to Friday mornings because of a new evening class.", "I play squash on Tuesday evenings."
    assert reports_change_of(squash, tuesday)
    assert not other_part_asked("When do I play squash now?", squash, tuesday)
    assert reports_change_of("We moved from Leeds to York.", "We live in Leeds.")
    skiing, hiking = "I go cross-country skiing on weekends.", "I broke my wrist, so I've switched from skiing to hiking for now."
    assert reports_change_of(hiking, skiing)
    assert other_part_asked("What do I do on weekends now?", hiking, skiing)  # told on the older line, not in its place
    assert not other_part_asked("What sport do I do now?", hiking, skiing)
    assert not other_part_asked("What do I do on Saturdays now?", "I swim on Saturdays instead of running.",
                                "I run 10 km every Saturday.")


def test_what_one_does_not_drink_or_have_is_avoided():
    """Set BF, held out: "I can't have caffeine." made no fact, no line was found for "Can you suggest a hot drink?",
    and "Try hot cocoa." came back. What one does not have is avoided only as all that is said of it."""
    from panda.language.facts import extract_statements

    def avoided(text):
        return [s.value for s in extract_statements(text) if s.attribute == "avoids"]

    assert avoided("I can't have caffeine.") == ["caffeine"]
    assert avoided("I don't drink alcohol.") == ["alcohol"]
    assert avoided("I can't have dairy, it makes me ill.") == ["dairy"]
    assert avoided("I don't eat pork and I don't drink alcohol.") == ["pork", "alcohol"]
    assert avoided("I don't have any nuts at home.") == []
    assert avoided("I don't have coffee in the evening.") == []


def test_a_thing_cut_back_with_words_between_is_its_change():
    """Set BG, held out: "How often do I volunteer at the shelter now?" -> "… on Saturday mornings now." beside "I've cut
    my shelter volunteering back to one Saturday a month." (only "cut back" side by side was a change)."""
    newer, older = "I've cut my shelter volunteering back to one Saturday a month.", "I volunteer at a dog shelter on Saturday mornings."
    assert reports_change_of(newer, older)
    assert not other_part_asked("How often do I volunteer at the shelter now?", newer, older)
    assert not reports_change_of("I cut my hair short.", "I volunteer at a dog shelter on Saturday mornings.")
