"""Current facts first (issue 12): knowledge updates told as conversations, searched now and as of then."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from panda.conversations.ingest import ingest_messages
from panda.conversations.messages import read_messages
from panda.language.facts import Statement, extract_statements, names_value
from panda.memory.current_facts import attributes_asked, split_key
from panda.memory.search import SearchRequest
from tests.conftest import write_jsonl

JULY = datetime(2026, 7, 1, tzinfo=UTC)


def conversation(tmp_path: Path, user: str, lines: list[tuple[str, str]], name: str = "c.jsonl") -> Path:
    """(timestamp, user message) pairs, each followed by an assistant reply, as an ingest JSONL."""
    rows = []
    for when, text in lines:
        rows.append(json.dumps({"user_id": user, "session_id": "chat", "timestamp": when, "role": "user",
                                "content": text}))
        rows.append(json.dumps({"user_id": user, "session_id": "chat", "timestamp": when.replace(":00Z", ":30Z"),
                                "role": "assistant", "content": "Thanks for telling me."}))
    return write_jsonl(tmp_path / name, rows)


def ingest(ctx, path: Path) -> None:
    messages, errors = read_messages(path)
    assert not errors
    ingest_messages(ctx, messages)


def titles(results) -> list[str]:
    return [r.title for r in results]


def test_attribute_cues_and_keys():
    assert attributes_asked("Where does Dana live now?") == ("residence",)
    assert attributes_asked("What does she do for a living?") == ("job",)
    assert "pet" in attributes_asked("Does Sam still have the dog?")
    assert attributes_asked("What are her hobbies?") == ("likes",)
    assert attributes_asked("Tell me a joke about the weather") == ()
    assert split_key("residence (Caroline)") == ("residence", "Caroline")
    assert split_key("hobbies") == ("likes", "")


def test_endings_name_values_and_do_not_end_what_the_same_message_adds():
    assert extract_statements("I quit running because of my knee.") == [
        Statement("preference", "likes", "running", ends=True)]
    sold = extract_statements("I sold my Civic and now I drive a Tesla Model 3.")
    assert Statement("fact", "car", "Tesla Model 3") in sold and Statement("fact", "car", "Civic", ends=True) in sold
    assert not any(s.attribute == "partner" and not s.ends for s in extract_statements("My girlfriend Mia and I broke up."))
    assert extract_statements("No, I have two cats.") == []
    assert names_value("running", "running marathons") and names_value("Civic", "Honda Civic")
    assert not names_value("Rex", "cat named Tom") and names_value("", "anything")


def test_residence_current_fact_first_old_message_marked_superseded(ctx, tmp_path: Path):
    ingest(ctx, conversation(tmp_path, "dana", [
        ("2026-01-10T09:00:00Z", "I live in Boston and I work as a nurse."),
        ("2026-03-02T10:00:00Z", "Boston winters are brutal, the snow in Boston never stops."),
        ("2026-06-02T18:00:00Z", "Big news: we moved to Denver last week! I live in Denver now."),
    ]))
    results = ctx.memory.search(SearchRequest("where does dana live", user_id="dana", now=JULY, record=False))
    assert titles(results)[:2] == ["residence: Denver", "residence: Boston"]
    current, old = results[0], results[1]
    assert not current.superseded and current.invalid_at is None
    assert old.superseded and old.valid_at == datetime(2026, 1, 10, 9, tzinfo=UTC)
    assert old.invalid_at == datetime(2026, 6, 2, 18, tzinfo=UTC)
    january = next(r for r in results if r.kind == "message" and r.title.startswith("I live in Boston"))
    assert january.superseded and january.score < current.score
    assert not any(r.superseded for r in results if r.kind == "message" and "Denver" in r.snippet)
    # as of March: Boston is the fact true then, and the June message did not exist yet
    march = ctx.memory.search(SearchRequest("where does dana live", user_id="dana", as_of=datetime(2026, 3, 15, tzinfo=UTC),
                              record=False))
    assert titles(march)[0] == "residence: Boston" and not march[0].superseded
    assert "residence: Denver" not in titles(march)
    assert not any("Denver" in r.snippet for r in march)
    # another user asking the same question sees none of dana's facts
    assert not any(r.kind == "fact" for r in ctx.memory.search(SearchRequest("where does dana live", user_id="eve", now=JULY,
                                                                   record=False)))


def test_job_relationship_car_pet_and_hobbies(ctx, tmp_path: Path):
    ingest(ctx, conversation(tmp_path, "sam", [
        ("2026-01-05T09:00:00Z", "I work as a teacher. My girlfriend Mia says hi."),
        ("2026-01-06T09:00:00Z", "I drive a Honda Civic and we have a dog named Rex."),
        ("2026-01-07T09:00:00Z", "I love hiking and I enjoy running marathons."),
        ("2026-04-01T09:00:00Z", "I work as a software engineer now, new career!"),
        ("2026-04-02T09:00:00Z", "Mia and I broke up. I'm single again."),
        ("2026-05-01T09:00:00Z", "I sold my Civic and now I drive a Tesla Model 3."),
        ("2026-05-02T09:00:00Z", "Our dog Rex passed away. We adopted a cat named Luna."),
        ("2026-05-03T09:00:00Z", "I quit running because of my knee. I took up pottery."),
    ]))

    def led(query: str) -> list[tuple[str, bool]]:
        return [(r.title, r.superseded) for r in ctx.memory.search(SearchRequest(query, user_id="sam", now=JULY, record=False))
                if r.kind in ("fact", "preference")]

    assert led("what is sam's job")[:2] == [("job: software engineer", False), ("job: teacher", True)]
    assert led("who is sam dating, is he married?")[0] == ("relationship_status: single", False)
    assert ("partner: Mia", True) in led("does sam have a girlfriend")
    assert led("what car does sam drive")[:2] == [("car: Tesla Model 3", False), ("car: Honda Civic", True)]
    pets = led("does sam have a dog or a cat")
    assert pets[0] == ("pet: cat named Luna", False) and ("pet: dog named Rex", True) in pets
    hobbies = led("what are sam's hobbies")
    assert set(hobbies[:2]) == {("likes: hiking", False), ("likes: pottery", False)}
    assert hobbies[2] == ("likes: running marathons", True)
    # as of February the old values were true
    february = ctx.memory.search(SearchRequest("what car does sam drive", user_id="sam", as_of=datetime(2026, 2, 1, tzinfo=UTC),
                                 record=False))
    assert february[0].title == "car: Honda Civic" and not february[0].superseded


@pytest.mark.parametrize("filters", [{"kinds": ["message"]}, {"scope": "global"}, {"topic_filter": "travel"}])
def test_filters_that_exclude_facts_keep_them_out(ctx, tmp_path: Path, filters):
    ingest(ctx, conversation(tmp_path, "dana", [("2026-01-10T09:00:00Z", "I live in Boston.")]))
    results = ctx.memory.search(SearchRequest("where does dana live", user_id="dana", now=JULY, record=False, **filters))
    assert not any(r.kind == "fact" for r in results)


def test_time_range_keeps_only_recent_documents(ctx, tmp_path: Path):
    ingest(ctx, conversation(tmp_path, "dana", [
        ("2026-01-10T09:00:00Z", "We went skiing in the Alps."),
        ("2026-06-28T10:00:00Z", "We went skiing indoors in Dubai."),
    ]))
    everything = ctx.memory.search(SearchRequest("skiing trip", user_id="dana", now=JULY, record=False))
    week = ctx.memory.search(SearchRequest("skiing trip", user_id="dana", now=JULY, record=False, time_range="week"))
    assert any("Alps" in r.snippet for r in everything)
    assert week and all(r.created_at >= datetime(2026, 6, 24, tzinfo=UTC) for r in week)
    assert any("Dubai" in r.snippet for r in week)


def test_likes_lead_only_when_they_are_what_is_asked(ctx, tmp_path: Path):
    ingest(ctx, conversation(tmp_path, "sam", [
        ("2026-01-05T09:00:00Z", "I love hiking in the hills."),
        ("2026-01-06T09:00:00Z", "I really enjoy sci-fi movies, the effects are so cool."),
        ("2026-01-07T09:00:00Z", "My turtles are great. I like having them around. I love this quote too."),
    ]))

    def led(query: str) -> list[str]:
        return [r.title for r in ctx.memory.search(SearchRequest(query, user_id="sam", now=JULY, record=False))
                if r.kind == "preference"][:3]

    # words that point back at something said before are not a liked thing
    assert set(led("what are sam's hobbies")) == {"likes: hiking in the hills", "likes: sci-fi movies"}
    assert led("what kind of movies does sam enjoy")[0] == "likes: sci-fi movies"
    results = ctx.memory.search(SearchRequest("what food does sam enjoy", user_id="sam", now=JULY, record=False))
    assert results[0].kind != "preference"  # no liked food known: the ranking answers, no hobby leads


def test_a_named_person_gets_their_own_facts_or_none(ctx, tmp_path: Path):
    rows = [json.dumps({"user_id": "pair", "session_id": "s1", "timestamp": f"2026-02-0{i + 1}T09:00:00Z",
                        "role": "user", "speaker": speaker, "content": text})
            for i, (speaker, text) in enumerate([
                ("John", "I work as an assistant manager at the store."),
                ("Maria", "I love volunteering at the shelter on weekends."),
                ("Maria", "Someday I might become a shelter coordinator."),
            ])]
    ingest(ctx, write_jsonl(tmp_path / "pair.jsonl", rows))

    def first(query: str) -> str:
        return ctx.memory.search(SearchRequest(query, user_id="pair", now=JULY, record=False))[0].title

    assert first("What is John's job?") == "job (John): assistant manager"
    assert first("What job might Maria pursue in the future?") != "job (John): assistant manager"
    assert first("What are Maria's hobbies?") == "likes (Maria): volunteering at the shelter on weekends"
    # someone the memory does not know: no fact is led with, the ranking is relevance alone (as with the rule off)
    unknown = [r.id for r in ctx.memory.search(SearchRequest("What job might Alex pursue?", user_id="pair", now=JULY, record=False))]
    retrieval = ctx.memory.policy.retrieval.model_copy(update={"current_facts_first": False})
    ctx.memory.policy = ctx.memory.policy.model_copy(update={"retrieval": retrieval})
    assert [r.id for r in ctx.memory.search(SearchRequest("What job might Alex pursue?", user_id="pair", now=JULY,
                                            record=False))] == unknown


def test_preference_values_name_a_thing():
    assert [s.value for s in extract_statements("I love pizza too! I love how you paint. I love it when it rains.")] \
        == ["pizza"]
    assert [s.value for s in extract_statements("I love traveling - it's a way to learn about cultures.")] \
        == ["traveling"]
    assert extract_statements("I love your commitment. I like this genre.") == []
    assert [s.value for s in extract_statements("I like to listen to classical music. That's what I like to hear!")] \
        == ["listen to classical music"]
    assert extract_statements("I will do the activities I like to the fullest.") == []


def test_a_new_job_car_or_employer_is_read_from_how_people_say_it():
    """Knowledge updates said without "I work as"/"I drive": a promotion, a car bought, an employer quit."""
    def said(text: str) -> list[tuple[str, str, bool]]:
        return [(s.attribute, s.value, s.ends) for s in extract_statements(text) if s.kind == "fact"]

    assert said("I got promoted to charge nurse yesterday.") == [("job", "charge nurse", False)]
    assert ("car", "Nissan Leaf", False) in said("I finally bought a used Nissan Leaf!")
    assert ("car", "2019 Toyota Corolla", False) in said("We just got a 2019 Toyota Corolla for the commute.")
    assert not any(a == "car" for a, _, _ in said("I bought a used bike."))
    assert said("I work as a graphic designer at a small agency called Bluefin.") == [
        ("job", "graphic designer", False), ("employer", "Bluefin", False)]
    assert said("I work night shifts as a nurse at St Mary's hospital.") == [
        ("job", "nurse", False), ("employer", "St Mary's", False)]
    assert said("I quit Bluefin and I'm freelancing now.") == [("employer", "Bluefin", True),
                                                              ("employer", "freelancing", False)]
    assert said("I quit my job last week.") == [("employer", "", True)]
    assert said("I work hard at my Spanish.") == []


def test_quitting_an_employer_leaves_the_new_one_current(ctx, tmp_path: Path):
    ingest(ctx, conversation(tmp_path, "ivy", [
        ("2026-05-05T09:00:00Z", "I work as a graphic designer at a small agency called Bluefin."),
        ("2026-05-28T14:00:00Z", "I quit Bluefin and I'm freelancing now."),
    ]))
    results = ctx.memory.search(SearchRequest("where do I work now", user_id="ivy", now=JULY, record=False))
    current = {r.title for r in results if r.kind == "fact" and not r.superseded}
    assert "employer: freelancing" in current and "employer: Bluefin" not in current


def test_a_diet_or_an_allergy_is_a_fact_a_meal_question_asks_about():
    assert [(s.attribute, s.value) for s in extract_statements("I'm vegan, by the way. I'm allergic to shellfish.")] == [
        ("diet", "vegan"), ("allergy", "shellfish")]
    assert attributes_asked("Can you suggest a quick high-protein dinner?") == ("diet", "avoids")
    assert attributes_asked("What am I allergic to?") == ("allergy",)
    # set U: an allergy said as a noun, and a food kept off the plate, which a dish to cook asks about
    assert [(s.attribute, s.value) for s in extract_statements("I have a peanut allergy, a bad one.")] == [
        ("allergy", "peanut")]
    assert [(s.attribute, s.value) for s in extract_statements("I've got a severe shellfish allergy.")] == [
        ("allergy", "shellfish")]
    assert [(s.attribute, s.value) for s in extract_statements("I don't eat pork and I don't drink alcohol.")] == [
        ("avoids", "pork"), ("avoids", "alcohol")]  # what is not drunk too (set BF, held out)
    assert attributes_asked("Recommend a dish I could cook for my crew.") == ("diet", "avoids")


def test_relatives_shows_books_and_moves_are_read_as_facts():
    """Set E: a sister named, a show finished for another, a move "from Leeds to York", a car sold as "the Civic"."""
    def said(text: str) -> list[tuple[str, str, bool]]:
        return [(s.attribute, s.value, s.ends) for s in extract_statements(text) if s.kind == "fact"]

    assert said("My sister Mei is getting married in Singapore in December.") == [("sister", "Mei", False)]
    assert said("My little brother, Luca, lives in Lisbon.") == [("brother", "Luca", False)]
    assert said("We finally moved from Leeds to York, and I've started at a school there.") == [
        ("residence", "York", False)]
    assert said("I drive a 2012 Honda Civic to the office.") == [("car", "2012 Honda Civic", False)]
    assert ("car", "Civic", True) in said("I sold the Civic; I cycle to the office every day now.")
    assert said("I've been watching Severance in the evenings.") == [("watching", "Severance", False)]
    finished = said("I finished Severance and started watching The Bear.")
    assert ("watching", "Severance", True) in finished and ("watching", "The Bear", False) in finished
    assert said("I'm reading The Lord of the Rings and I love it.") == [("reading", "The Lord of the Rings", False)]
    assert said("I'm reading a book about bees.") == [] and said("My sister is a nurse.") == []
    assert not any(a == "watching" for a, _, _ in said("I quit Bluefin and I'm freelancing now."))
    assert said("I adopted a retired racing greyhound called Dash.") == [("pet", "retired racing greyhound called Dash",
                                                                          False)]  # a named adoptee, whatever kind
    assert attributes_asked("What do I do for work?") == ("job",)
    assert attributes_asked("What's my sister called?") == ("sister",)
    assert attributes_asked("What show am I watching at the moment?") == ("watching",)


def test_the_show_finished_is_not_what_the_user_watches_now_and_a_sister_leads_her_question(ctx, tmp_path: Path):
    ingest(ctx, conversation(tmp_path, "wen", [
        ("2026-08-08T20:00:00Z", "My sister Mei is getting married in Singapore in December."),
        ("2026-08-08T20:02:00Z", "I've been watching Severance in the evenings."),
        ("2026-09-12T21:00:00Z", "I finished Severance and started watching The Bear."),
    ]))
    now = datetime(2026, 10, 3, tzinfo=UTC)
    results = ctx.memory.search(SearchRequest("What show am I watching at the moment?", user_id="wen", now=now,
                                              record=False))
    assert results[0].title == "watching: The Bear" and not results[0].superseded
    assert "watching: Severance" not in {r.title for r in results if r.kind == "fact" and not r.superseded}
    sister = ctx.memory.search(SearchRequest("What's my sister called?", user_id="wen", now=now, record=False))
    assert sister[0].title == "sister: Mei"


def test_a_person_or_pet_named_as_gone_is_no_longer_current_and_a_flat_in_a_city_is_a_residence(ctx, tmp_path: Path):
    """Set G: "Joe moved out, and my friend Anika has taken his room." left "flatmate: Joe" current ("Who is my
    flatmate now?" -> "Joe is my flatmate now."), and "I live in a flat in Manchester" was no residence."""
    assert [(s.key, s.value) for s in extract_statements("I live in a flat in Manchester with my flatmate Joe.")] == \
        [("residence", "Manchester"), ("flatmate", "Joe")]
    assert [(s.key, s.value, s.ends) for s in extract_statements("Sadly Tofu died last week.")] == [("", "Tofu", True)]
    assert extract_statements("We moved out of London.") == []  # a pronoun names no one
    # set H: a shift moved between days is no home ("residence: Wednesday" answered "Which day do I volunteer now?")
    assert extract_statements("I've moved from Saturdays to Wednesday afternoons at the food bank.") == []
    assert [(s.key, s.value) for s in extract_statements("We moved from Leeds to Sunderland in May.")] == \
        [("residence", "Sunderland")]
    ingest(ctx, conversation(tmp_path, "priya", [
        ("2026-03-09T12:02:00Z", "I live in a flat in Manchester with my flatmate Joe."),
        ("2026-04-01T12:00:00Z", "I love Joe's cooking."),
        ("2026-05-21T20:00:00Z", "Joe moved out, and my friend Anika has taken his room."),
    ]))
    now = datetime(2026, 6, 30, tzinfo=UTC)
    flatmate = ctx.memory.search(SearchRequest("Who is my flatmate now?", user_id="priya", now=now, record=False))
    current = {r.title for r in flatmate if r.kind in ("fact", "preference") and not r.superseded}
    assert "flatmate: Joe" not in current and "likes: Joe's cooking" in current  # only people and pets end
    city = ctx.memory.search(SearchRequest("Which city do I live in?", user_id="priya", now=now, record=False))
    assert city[0].title == "residence: Manchester"


def test_the_constraints_are_the_users_own_current_diets_and_allergies():
    from panda.documents.user_memory import MemoryEntry
    from panda.memory.current_facts import constraints_of

    def entry(key, value, learned, invalid=None):
        return MemoryEntry(id=f"f_{key}_{learned}", key=key, value=value, learned_at=datetime(2026, learned, 1, tzinfo=UTC),
                           invalid_at=invalid and datetime(2026, invalid, 1, tzinfo=UTC))

    entries = [entry("diet", "vegetarian", 1, invalid=3), entry("diet", "vegan", 3), entry("allergy (Maya)", "nuts", 2),
               entry("job", "nurse", 2), entry("allergy", "shellfish", 5), entry("allergy", "peanuts", 9)]
    got = constraints_of(entries, datetime(2026, 6, 1, tzinfo=UTC))
    assert [(h.entry.key, h.entry.value) for h in got] == [("allergy", "shellfish"), ("diet", "vegan")]


def test_a_move_out_of_one_place_into_a_studio_of_ones_own_is_a_residence():
    """Set V: "I've moved out of Enzo's flat into a studio of my own in San Salvario." left no fact, and "Which
    neighbourhood do I live in now?" was answered from the line about the café."""
    assert [(s.attribute, s.value) for s in extract_statements(
        "I've moved out of Enzo's flat into a studio of my own in San Salvario.")] == [("residence", "San Salvario")]


def test_a_job_taken_up_in_the_clause_after_one_stopped_is_a_job():
    """Set W: "I've stopped couriering and now work in the office as a dispatcher." left "job: bike courier" current."""
    assert [(s.attribute, s.value) for s in extract_statements(
        "I've stopped couriering and now work in the office as a dispatcher.")] == [("job", "dispatcher")]


def test_a_job_said_as_one_of_the_common_occupations_and_no_judgement_of_oneself():
    """Set Z: "I'm a dentist with my own practice in Haifa." left no job (the list held sixteen occupations), and "What's
    my job?" was answered "Noam is a dentist …"; "I'm a terrible driver" is no job."""
    def jobs(text: str) -> list[tuple[str, str]]:
        return [(s.attribute, s.value) for s in extract_statements(text)]

    assert jobs("I'm a dentist with my own practice in Haifa.") == [("job", "dentist")]
    assert jobs("I'm a train driver out of Umeå.") == [("job", "train driver")]
    assert jobs("I am a retired pharmacist.") == [("job", "retired pharmacist")]
    assert jobs("I'm a brewer at a craft brewery in Brno.") == [("job", "brewer")]  # set AB
    assert jobs("I'm a terrible driver.") == []
    assert jobs("I'm a keen photographer.") == []
    assert jobs("I'm a big fan of jazz.") == []
    # set AF, held out: up to three words before the occupation ("What do I do for work?" -> "You are lactose intolerant.")
    assert jobs("I'm a primary school teacher in Mombasa.") == [("job", "primary school teacher")]
    assert jobs("I'm a software tester at an insurance company in Antwerp.") == [("job", "software tester")]
    assert jobs("I'm a part-time bar waiter.") == [("job", "part-time bar waiter")]
    assert jobs("I'm a fan of the new cook.") == []
