"""Properties over random legal play (issue 2): never below zero, deterministic, files round-trip, undo."""

from hypothesis import given, settings
from hypothesis import strategies as st
from simulate import random_events

from scorekeeper.match import replay
from scorekeeper.matchfile import MatchFile, dumps, loads
from scorekeeper.rules import Rules, WinMode
from scorekeeper.summary import score_sheet, totals_by_round

PLAYERS = st.sampled_from([("Anna", "Bo"), ("Anna", "Bo", "Cia"), ("Anna", "Bo", "Cia", "Dan")])
RULES = st.sampled_from(
    [
        Rules(),
        Rules(target=20),
        Rules(target=15, win=WinMode.FIRST_TO_REACH),
        Rules(chicago=20, chicago_min=5, no_exchange_at=10, chicago_leads=True),
    ]
)


def play_randomly(data, players, rules, steps=120):
    return random_events(players, rules, lambda options: data.draw(st.sampled_from(options)), steps)


@settings(max_examples=30, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_random_legal_play_never_yields_a_negative_total(data, players, rules):
    _, states = play_randomly(data, players, rules)
    for state in states:
        assert min(state.scores) >= 0


@settings(max_examples=30, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_replay_is_deterministic_and_matches_step_by_step_play(data, players, rules):
    events, states = play_randomly(data, players, rules)
    if events:
        assert replay(players, rules, events) == replay(players, rules, events) == states[-1]


@settings(max_examples=30, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_export_then_import_is_the_identity(data, players, rules):
    events, _ = play_randomly(data, players, rules)
    match = MatchFile(players, rules, tuple(events))
    again = loads(dumps(match))
    assert again == match
    assert dumps(again) == dumps(match)
    assert again.replay() == match.replay()


@settings(max_examples=20, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_undo_after_any_event_equals_never_having_recorded_it(data, players, rules):
    events, _ = play_randomly(data, players, rules, steps=60)
    from scorekeeper.events import Undo

    for i, event in enumerate(events):
        if isinstance(event, Undo):
            continue
        assert replay(players, rules, [*events[: i + 1], Undo()]) == replay(players, rules, events[:i])


@settings(max_examples=20, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_the_charts_points_are_the_score_sheets_totals_at_every_rounds_end(data, players, rules):
    """totals_by_round reads the tally (the write path works it out at every tap that changes a total),
    score_sheet walks the changes."""
    _, states = play_randomly(data, players, rules)
    for state in states:
        sheet = [r.totals for r in score_sheet(state) if r.number > 0 and r.finished]
        assert totals_by_round(state) == [(0,) * len(players), *sheet]


@settings(max_examples=30, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_each_players_best_declaration_is_the_highest_they_declared_in_events_still_in_effect(
    data, players, rules
):
    """A player's best hand in the match (their figures) is kept by the state itself, undos included."""
    from scorekeeper.events import Declare
    from scorekeeper.match import in_effect

    events, states = play_randomly(data, players, rules)
    for done, state in enumerate(states, start=1):
        best = dict.fromkeys(players)
        for index in in_effect(events[:done]):
            event = events[index]
            if isinstance(event, Declare) and (
                best[event.player] is None or event.hand.order > best[event.player].order
            ):
                best[event.player] = event.hand
        assert (state.best_declared or (None,) * len(players)) == tuple(best.values())


@settings(max_examples=20, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_each_players_points_by_source_are_their_changes_summed_whatever_tally_they_go_on_from(
    data, players, rules
):
    """The write path works a tap's figures out from the tally of the match before it
    (summary.tally(state, since)). Gone on from the state before's tally (play order), from any
    other state's (an undo goes back, another branch shares a beginning) or from none, each
    player's points by source, Chicagos and the chart are what walking every change from the
    start gives."""
    from scorekeeper.scores import Reason
    from scorekeeper.summary import figures, tally

    _, states = play_randomly(data, players, rules, steps=80)
    order = data.draw(st.permutations(range(len(states))))
    tallies = {}
    asked = [*range(len(states)), *order]  # play order, then any order
    for before, at in zip([None, *asked], asked, strict=False):
        state = states[at]
        since = tallies.get(before)
        counted = tally(state, since)
        tallies[at] = counted
        points: list[dict[str, int]] = [{} for _ in players]
        chicagos = [[0, 0] for _ in players]
        for change in state.changes():
            key = change.hand.value if change.hand is not None else change.reason.value
            points[change.seat][key] = points[change.seat].get(key, 0) + change.delta
            chicagos[change.seat][0] += change.reason is Reason.CHICAGO_WON
            chicagos[change.seat][1] += change.reason is Reason.CHICAGO_LOST
        for found in (figures(state, counted), figures(state)):
            assert [f.points for f in found] == points
            assert [[f.chicago_won, f.chicago_lost] for f in found] == chicagos
            assert [sum(f.points.values()) for f in found] == list(state.scores)
        sheet = [r.totals for r in score_sheet(state) if r.number > 0 and r.finished]
        assert totals_by_round(state, counted) == [(0,) * len(players), *sheet]
