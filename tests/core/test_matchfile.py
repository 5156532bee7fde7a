"""The match file ``chicago-match/1`` (MATCH_FORMAT.md): a public contract."""

import json
import re
from pathlib import Path

import pytest
from script import events

from scorekeeper.cards import parse_cards, parse_hand
from scorekeeper.events import Declare, Tie
from scorekeeper.hands import Category
from scorekeeper.matchfile import EVENT_TYPES, FormatError, MatchFile, dump, dumps, load, loads, read_event
from scorekeeper.rules import HAND_NAMES, Rules


def document(events=(), **changes):
    doc = {"format": "chicago-match/1", "players": ["Anna", "Bo", "Cia"], "rules": {}, "events": list(events)}
    doc.update(changes)
    return doc


def test_a_minimal_document_is_read():
    match = load(document())
    assert match == MatchFile(("Anna", "Bo", "Cia"), Rules(), ())


def test_absent_rules_mean_the_base_rules_and_unknown_top_level_keys_are_ignored():
    doc = document(id="m1", created_at="2026-11-30", app_version="9")
    del doc["rules"]
    assert load(doc).rules == Rules()


EVENTS = [
    {"type": "draw", "cards": {"Anna": "3h", "Bo": "3s", "Cia": "Kd"}},
    {"type": "dealer", "player": "Bo"},
    {"type": "exchange", "player": "Bo", "count": 5},
    {"type": "show", "player": "Bo", "cards": "Qs Qh 9c 9d 2s"},
    {"type": "declare", "player": "Bo", "hand": "two_pair"},
    {"type": "declare", "player": "Bo", "hand": "royal_flush", "cards": "Ts Js Qs Ks As"},
    {"type": "pass", "player": "Bo"},
    {"type": "tie", "winner": "Bo"},
    {"type": "tie", "winner": None},
    {"type": "tie", "cards": {"Bo": "Qs Qh 9c 9d 2s", "Cia": "Ks Kh 9h 9s 2d"}},
    {"type": "chicago", "player": "Bo"},
    {"type": "blanco", "player": "Bo"},
    {"type": "trick", "winner": "Bo"},
    {"type": "trick", "winner": "Bo", "card": "Ah"},
    {"type": "last_trick", "winner": "Bo", "card": "2c"},
    {"type": "last_trick", "winner": "Bo"},
    {"type": "adjust", "player": "Bo", "points": -2, "reason": "show failed"},
    {"type": "undo"},
]


@pytest.mark.parametrize("data", EVENTS, ids=[f"{e['type']}-{i}" for i, e in enumerate(EVENTS)])
def test_every_event_type_reads_and_writes_back_the_same(data):
    event = read_event(data)
    assert type(event) is EVENT_TYPES[data["type"]]
    from scorekeeper.matchfile import write_event

    assert write_event(event) == data


def test_every_event_type_has_a_class():
    assert set(EVENT_TYPES) == {e["type"] for e in EVENTS}


def test_cards_are_read_in_any_spelling_and_written_canonically():
    event = read_event(
        {"type": "declare", "player": "Bo", "hand": "straight_flush", "cards": "10♥, j♥ Q♥ K♥ 9♥"}
    )
    assert event == Declare("Bo", Category.STRAIGHT_FLUSH, parse_hand("Th Jh Qh Kh 9h"))
    from scorekeeper.matchfile import write_event

    assert write_event(event)["cards"] == "Th Jh Qh Kh 9h"


def test_a_card_twice_in_one_hand_is_well_formed_and_left_to_the_engine():
    """Issue 12, item 9: the one-deck rule is the engine's (exit 1), as for a card in two hands."""
    from scorekeeper.matchfile import write_event
    from scorekeeper.refusals import RuleBroken

    data = {"type": "declare", "player": "Bo", "hand": "pair", "cards": "Qs Qs 9c 5d 2s"}
    event = read_event(data)
    assert event.cards == parse_cards("Qs Qs 9c 5d 2s") and write_event(event) == data
    match = load(document([{"type": "dealer", "player": "Anna"}, data]))
    with pytest.raises(RuleBroken, match="event 1: Bo cannot hold Q♠ twice: there is only one deck"):
        match.replay()


def test_a_tie_verdict_of_identical_is_a_null_winner():
    assert read_event({"type": "tie", "winner": None}) == Tie(winner=None)


BAD_EVENTS = [
    ({"type": "shuffle"}, "“shuffle” is not an event type; the types are “draw”, “dealer”, "),
    ({"player": "Bo"}, 'each event needs its type, such as {"type": "pass", "player": "Bo"}'),
    ("pass Bo", 'each event must be in braces, such as {"type": "pass", '),
    ({"type": "pass"}, "an event of type “pass” needs “player”"),
    ({"type": "pass", "player": ""}, "“player” must be a player's name"),
    ({"type": "pass", "player": "Bo", "hand": "pair"}, "“hand” does not belong in an event of type “pass”"),
    ({"type": "exchange", "player": "Bo", "count": 6}, "“count” must be a whole number from 0 to 5"),
    ({"type": "exchange", "player": "Bo", "count": True}, "“count” must be a whole number from 0 to 5"),
    ({"type": "exchange", "player": "Bo", "count": "2"}, "“count” must be a whole number from 0 to 5"),
    (
        {"type": "declare", "player": "Bo", "hand": "high_card"},
        "“high_card” is not a hand name; the hand names are “pair”, “two_pair”, ",
    ),
    ({"type": "declare", "player": "Bo", "hand": "pair", "cards": "Qs Qh 1x 5d 2s"}, "“1x” is not a card"),
    (
        {"type": "declare", "player": "Bo", "hand": "pair", "cards": "Qs Qh 5d 2s"},
        "A hand is five cards, not 4",
    ),
    ({"type": "show", "player": "Bo", "cards": ["Qs"]}, "“cards” must be five cards"),
    ({"type": "tie"}, "an event of type “tie” needs “winner” or “cards”"),
    (
        {"type": "tie", "winner": "Anna", "cards": {"Anna": "2s 3s 4s 5s 7d"}},
        "an event of type “tie” has both “winner” and “cards”: keep one of them",
    ),
    ({"type": "tie", "cards": {}}, '“cards” must give the cards by player name, such as {"Bo": '),
    ({"type": "trick", "winner": "Bo", "card": "Zz"}, "“Zz” is not a card"),
    ({"type": "adjust", "player": "Bo", "points": 1.5, "reason": "x"}, "“points” must be a whole number"),
    ({"type": "adjust", "player": "Bo", "points": 2}, "an event of type “adjust” needs “reason”"),
    ({"type": "draw", "cards": {"Bo": "3s", "Cia": 3}}, "“cards.Cia” must be a card"),
]


@pytest.mark.parametrize(("data", "message"), BAD_EVENTS, ids=[m for _, m in BAD_EVENTS])
def test_a_malformed_event_is_a_format_error_with_its_index(data, message):
    with pytest.raises(FormatError, match=re.escape(message)) as caught:
        load(document([{"type": "dealer", "player": "Anna"}, data]))
    assert caught.value.index == 1
    assert str(caught.value).startswith("event 1: ")


BAD_DOCUMENTS = [
    ([], 'a match file must be in braces, such as {"format": "chicago-match/1", '),
    (document(format="chicago-match/2"), '“format” must be "chicago-match/1"'),
    ({"players": ["Anna", "Bo"]}, "“format” must be"),
    (document(players=["Anna"]), "a match has 2 to 4 players, not 1"),
    (document(players=["A", "B", "C", "D", "E"]), "a match has 2 to 4 players, not 5"),
    (document(players=["Anna", "  "]), "a player's name cannot be empty"),
    (document(players=["Anna", "anna"]), "the players' names must be different"),
    (document(players=["Anna", "B" * 41]), "longer than 40 characters"),
    (document(players="Anna Bo"), '“players” must be a list of names, such as ["Anna", '),
    (document(players=["Anna", 7]), "“players” must be a list of names"),
    (document(rules={"goal": 3}), "“goal” is not a house rule"),
    (document(rules={"points": {"pair": -1}}), "“points.pair” must be a whole number from 0 to 1000"),
    (document(rules=[]), '“rules” must be in braces, such as {"target": 30}'),
    ({**document(), "events": {}}, '“events” must be a list in square brackets, such as [{"type": '),
]


@pytest.mark.parametrize(("doc", "message"), BAD_DOCUMENTS, ids=[m for _, m in BAD_DOCUMENTS])
def test_a_document_that_is_not_chicago_match_1_is_a_format_error(doc, message):
    with pytest.raises(FormatError, match=re.escape(message)):
        load(doc)


@pytest.mark.parametrize("text", ["", "{", "[1, 2", "not json", b"\xff\xfe"])
def test_text_that_is_not_json_is_a_format_error(text):
    with pytest.raises(FormatError, match="not valid JSON"):
        loads(text)


# TRUST.md I6: every number in a file has a range a real match keeps within (rules.NUMBERS).
OUT_OF_RANGE = [
    *[
        ({"target": v}, "“target” must be a whole number from 1 to 1000")
        for v in (0, 1001, 10**30, True, 52.0)
    ],
    *[
        ({"points": {"pair": v}}, "“points.pair” must be a whole number from 0 to 1000")
        for v in (-1, 1001, 10**20)
    ],
    *[
        ({key: v}, f"“{key}” must be a whole number from 0 to 1000")
        for key in ("last_trick", "chicago", "chicago_min", "no_exchange_at")
        for v in (-1, 1001, 2**63)
    ],
]


@pytest.mark.parametrize(("rules", "message"), OUT_OF_RANGE, ids=[repr(r) for r, _ in OUT_OF_RANGE])
def test_a_house_rule_out_of_its_range_is_a_format_error_naming_it(rules, message):
    with pytest.raises(FormatError) as caught:
        load(document(rules=rules))
    assert caught.value.message == message


EVENT_NUMBERS = [
    *[("exchange", "count", v, "0 to 5") for v in (-1, 6, 10**30, True, "2", 2.0)],
    *[("adjust", "points", v, "−1000 to 1000") for v in (1001, -1001, 2**63, -(2**63) - 1, 10**30, 1.5, "5")],
]


@pytest.mark.parametrize(
    ("kind", "key", "value", "bounds"), EVENT_NUMBERS, ids=[repr(e) for e in EVENT_NUMBERS]
)
def test_an_events_number_out_of_its_range_is_a_format_error_naming_it(kind, key, value, bounds):
    data = {"type": kind, "player": "Bo", key: value, **({"reason": "x"} if kind == "adjust" else {})}
    with pytest.raises(FormatError) as caught:
        load(document([{"type": "dealer", "player": "Anna"}, data]))
    assert (caught.value.index, caught.value.message) == (1, f"“{key}” must be a whole number from {bounds}")


def test_the_ends_of_each_range_are_read():
    rules = {
        "target": 1000,
        "points": {"pair": 0, "royal_flush": 1000},
        "last_trick": 1000,
        "no_exchange_at": 0,
    }
    assert load(document(rules=rules)).rules.to_dict() == rules
    for count in (0, 5):
        assert read_event({"type": "exchange", "player": "Bo", "count": count}).count == count
    for points in (-1000, 1000):
        assert read_event({"type": "adjust", "player": "Bo", "points": points, "reason": ""}).points == points


def test_names_are_trimmed():
    assert load(document(players=[" Anna ", "Bo"])).players == ("Anna", "Bo")


def test_export_writes_the_canonical_form_and_reads_back_identically():
    match = MatchFile(
        ("Anna", "Bo", "Cia"),
        Rules.from_dict({"target": 30, "points": {"flush": 6}, "deuce_last_trick_double": True}),
        tuple(events("dealer Anna; declare Bo flush 10h 8h 6h 4h 2h; pass Cia; tie identical; undo")),
    )
    doc = dump(match, id="m1")
    assert doc["rules"] == {"target": 30, "points": {"flush": 6}, "deuce_last_trick_double": True}
    assert doc["events"][1]["cards"] == "Th 8h 6h 4h 2h"
    assert doc["id"] == "m1"
    text = dumps(match, id="m1")
    assert json.loads(text) == doc
    assert loads(text) == match


def test_an_unknown_player_in_an_event_is_a_broken_rule_not_a_format_error():
    from scorekeeper.refusals import RuleBroken

    match = load(document([{"type": "dealer", "player": "Dan"}]))
    with pytest.raises(RuleBroken, match="event 0: Dan is not playing in this match"):
        match.replay()


def test_a_stored_match_is_read_without_the_ranges_but_still_by_type():
    """The app's event log holds what earlier versions accepted; only what comes in is bounded."""
    adjust = {"type": "adjust", "player": "Bo", "points": 5000, "reason": ""}
    assert read_event(adjust, bounded=False).points == 5000
    assert Rules.from_dict({"target": 10**20, "points": {"pair": 2000}}, bounded=False).target == 10**20
    with pytest.raises(FormatError, match="“points” must be a whole number"):
        read_event({**adjust, "points": "5000"}, bounded=False)
    with pytest.raises(FormatError, match="“count” must be a whole number from 0 to 5"):
        read_event({"type": "exchange", "player": "Bo", "count": 6}, bounded=False)
    from scorekeeper.rules import RulesError

    with pytest.raises(RulesError, match="“target” must be a whole number from 1 to 1000"):
        Rules.from_dict({"target": 52.0}, bounded=False)


# The variants of RULES.md, in the file's spelling (MATCH_FORMAT.md, "rules").
VARIANTS = {
    "chicago_to_win": True,
    "four_of_a_kind_resets": True,
    "instant_win": ["straight_flush", "royal_flush"],
    "blanco_chicago": 30,
    "chicago_break_bonus": 10,
    "over_target_resets": True,
    "phases": 2,
    "more_players": True,
}


def test_every_variant_key_reads_and_writes_back_the_same():
    match = load(
        document([{"type": "dealer", "player": "Anna"}, {"type": "blanco", "player": "Bo"}], rules=VARIANTS)
    )
    assert match.rules.instant_win == (Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)
    assert dump(match)["rules"] == VARIANTS
    assert loads(dumps(match)) == match
    for key, value in VARIANTS.items():
        assert load(document(rules={key: value})).rules.to_dict() == {key: value}


def test_an_old_file_without_the_variant_keys_means_the_base_rules():
    rules = load(document()).rules
    assert (rules.chicago_to_win, rules.instant_win, rules.blanco_chicago, rules.phases) == (
        False,
        (),
        None,
        3,
    )
    assert rules == Rules() and rules.changes() == ()


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"phases": 4}, "“phases” must be 3 or 2"),
        (
            {"instant_win": "royal_flush"},
            '“instant_win” must be a list of hand names, such as ["straight_flush", "royal_flush"]',
        ),
        ({"instant_win": ["royal"]}, "“royal” is not a hand name; the hand names are " + str(HAND_NAMES)),
        ({"blanco_chicago": -30}, "“blanco_chicago” must be a whole number from 0 to 1000"),
        ({"chicago_break_bonus": None}, "“chicago_break_bonus” must be a whole number from 0 to 1000"),
        ({"more_players": "yes"}, "“more_players” must be true or false"),
    ],
    ids=[
        "phases",
        "instant_win",
        "instant_win-name",
        "blanco_chicago",
        "chicago_break_bonus",
        "more_players",
    ],
)
def test_a_variant_of_the_wrong_kind_is_a_format_error_naming_it(rules, message):
    with pytest.raises(FormatError) as caught:
        load(document(rules=rules))
    assert caught.value.message == message


def test_five_or_six_players_only_with_the_house_rule():
    six = ["Anna", "Bo", "Cia", "Dan", "Eva", "Fay"]
    with pytest.raises(FormatError, match="a match has 2 to 4 players, not 6"):
        load(document(players=six))
    assert load(document(players=six, rules={"more_players": True})).players == tuple(six)
    with pytest.raises(FormatError, match="a match has 2 to 6 players, not 7"):
        load(document(players=[*six, "Gus"], rules={"more_players": True}))


VARIANT_FILES = sorted((Path(__file__).parents[1] / "matches" / "variants").glob("*.json"))


@pytest.mark.parametrize("path", VARIANT_FILES, ids=[p.stem for p in VARIANT_FILES])
def test_a_variants_recorded_match_writes_back_what_it_read(path):
    document = json.loads(path.read_text())
    match = load(document)
    written = dump(match)
    assert (written["players"], written["rules"], written["events"]) == (
        document["players"],
        document["rules"],
        document["events"],
    )
    assert loads(dumps(match)) == match
