"""What the scoring screen shows, worked out once from the match state for the templates."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import combinations
from typing import Any

from babel.lists import format_list
from flask import render_template, request, url_for
from markupsafe import Markup

from scorekeeper.cards import Rank
from scorekeeper.events import Declare, Pass
from scorekeeper.feed import change_words, describe_words, said_at, step_words, undo_words
from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.match import undo_walk, walk_back
from scorekeeper.quick import speakers_left
from scorekeeper.state import HAND_SIZE, MatchState, Stage
from scorekeeper.web import roles
from scorekeeper.web.cache import cache, text_size
from scorekeeper.web.present.i18n import (
    get_locale,
    hand_name,
    house_rules,
    ngettext,
    refusal_text,
    rules_summary,
    say,
)
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.store.eventlog import StoredMatch

FEED_LENGTH = 12
REDO_SECONDS = 8  # how long "Redo" is offered after an undo (issue 25: instead of a confirm dialog)
RANK_LABELS = tuple(rank.label for rank in Rank)  # the draw for the first deal: a rank by tap


@dataclass(frozen=True)
class Seat:
    name: str
    score: int
    dealer: bool
    turn: bool
    winner: bool
    sitting_out: bool
    delta: int | None


@dataclass(frozen=True)
class FeedEntry:
    index: int
    text: str
    at: str
    undone: bool


def _seats(state: MatchState, turn: str | None) -> list[Seat]:
    last = state.last_change
    return [
        Seat(
            name=name,
            score=state.scores[seat],
            dealer=seat == state.dealer and not state.is_finished,
            turn=name == turn and not state.is_finished,
            winner=seat == state.winner,
            sitting_out=state.round > 0 and seat not in state.order,
            delta=last.delta if last is not None and last.seat == seat else None,
        )
        for seat, name in enumerate(state.players)
    ]


def full_log(match: StoredMatch) -> list[FeedEntry]:
    """Every event of the match, newest first, undone ones marked."""
    return _feed(match, undo_walk(match.events)[1], length=len(match.events))


def _cancelled(match: StoredMatch) -> dict[int, int]:
    """For each undo the feed shows, the event it cancelled (the log read from its end)."""
    return walk_back(match.events, len(match.events) - FEED_LENGTH)[1]


def _feed(match: StoredMatch, cancelled: dict[int, int], length: int = FEED_LENGTH) -> list[FeedEntry]:
    events = match.events
    gone = set(cancelled.values())
    entries = []
    for index in range(len(events) - 1, max(-1, len(events) - 1 - length), -1):
        if index in cancelled:
            text = say(undo_words(events[cancelled[index]], said_at(events, cancelled[index])))
        else:
            text = say(said_at(events, index))
        entries.append(FeedEntry(index, text, match.recorded_at[index][11:16], index in gone))
    return entries


def _chicago_options(state: MatchState) -> list[dict[str, Any]]:
    """Who may call Chicago, and why not in the engine's words."""
    options = []
    for seat in state.order:
        refusal = state.chicago_refusal(seat)
        reason = "" if refusal is None else refusal_text(refusal)
        options.append({"name": state.players[seat], "enabled": refusal is None, "reason": reason})
    return options


_ROUND_STAGES = (Stage.EXCHANGE, Stage.SHOWDOWN, Stage.TRICKS)


def turn_partials(state: MatchState) -> list[str]:
    """The partials of the next action: one per stage open now, after the round's notes in a round."""
    stages = state.open_stages
    partials = [f"matches/turn/_{stage.value}.html" for stage in stages]
    if stages[0] in _ROUND_STAGES:
        partials.insert(0, "matches/turn/_round.html")
    return partials


def _used_cards(state: MatchState) -> set[str]:
    used = {repr(c) for d in state.declarations if d.cards for c in d.cards}
    if state.tie is not None:
        used |= {repr(c) for _, cards in state.tie.cards for c in cards}
    return used


ENTRY_COOKIE = "entry"
ENTRY_STYLES = ("quick", "detail")  # one tap per showdown, or declaration by declaration


def entry_style() -> str:
    """How this phone records a showdown (remembered in a cookie; one tap unless it chose otherwise)."""
    chosen = request.cookies.get(ENTRY_COOKIE, "")
    return chosen if chosen in ENTRY_STYLES else ENTRY_STYLES[0]


@dataclass(frozen=True)
class GridRow:
    """A row of the one-tap showdown (attributes, not a dict: the template reads each several times)."""

    hand: Category
    key: str  # the hand's value, as the form sends it
    label: str  # said once a row: the row's name and each cell's spoken label
    points: int
    cells: list[tuple[str, bool]]  # each player in seat order, and whether the cell is legal
    tie: bool  # the hand's name is a link to its tie


# The rarest hands, behind a row of their own: the common taps fit a small phone's first screen.
RARE = (Category.FOUR_OF_A_KIND, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)


def quick_grid(state: MatchState) -> tuple[list[GridRow], list[GridRow]]:
    """The one-tap showdown: a row per declarable hand, a cell per player, legal cells enabled;
    the common hands' rows, then the rare ones'.

    The players are in seat order, the columns of the scoreboard above, every round (the first
    to speak is marked, ``first_speaker``); a row whose hand two players could still both declare
    is also a link to its tie (``tie_row``).
    """
    left, legal = set(speakers_left(state)), set(state.legal_hands())
    names = [state.players[s] for s in sorted(state.order)]
    rows = [
        GridRow(
            hand,
            hand.value,
            hand_name(hand),
            state.rules.points[hand],
            [(name, name in left and hand in legal) for name in names],
            len(left) > 1 and hand in legal,
        )
        for hand in DECLARABLE
    ]
    return [row for row in rows if row.hand not in RARE], [row for row in rows if row.hand in RARE]


def tie_row(state: MatchState, text: str) -> dict[str, Any] | None:
    """A tie on the grid (``?tie=<hand>``): the hand, each pair of players who could have tied in it,
    and each group of three or more, in speaking order.

    One tap on the tied players' verdict records the showdown and settles the tie.
    """
    left = speakers_left(state)
    if text not in {c.value for c in state.legal_hands()} or len(left) < 2:
        return None
    pairs = list(combinations(left, 2))
    groups = [group for size in range(3, len(left) + 1) for group in combinations(left, size)]
    return {"hand": Category(text), "pairs": pairs, "groups": groups}


def _latest(state: MatchState) -> dict[str, Any]:
    """The latest change of a total and the latest showdown's outcome, each said once.

    When the change is that showdown's score, the outcome says it with its reason (a tie's verdict)
    and stands alone; otherwise the outcome follows, named by its round and phase.
    """
    change, outcome = state.last_change, state.outcome
    outcome_said = say(outcome.words) if outcome else None
    if (
        change is not None
        and outcome is not None
        and outcome.player == state.players[change.seat]
        and (change.round, change.phase, change.hand, change.delta)
        == (outcome.round, outcome.phase, outcome.hand, outcome.points)
    ):
        return {"last_change": outcome_said, "outcome": None, "outcome_at": outcome}
    return {
        "last_change": say(change_words(state, change)) if change else None,
        "outcome": outcome_said,
        "outcome_at": outcome,  # its round and phase name it ("Last showdown" read as the final one)
    }


def board_context(match: StoredMatch, state: MatchState, **extra: Any) -> dict[str, Any]:
    """What the live view's board reads (matches/_board.html): the scores, the next action, the feed.

    A spectator's board is rendered at every tap of the match it follows: it works out
    only what the board shows, none of the scorekeeper's choices.
    """
    context = _board(match, state, _cancelled(match))
    context["rematch_url"] = None  # watching.py: the live view of the match's rematch, once started
    context.update(extra)
    if "watch_token" not in context:
        context["watch_token"] = roles.watch_token(match.id)
    return context


def _board(match: StoredMatch, state: MatchState, cancelled: dict[int, int]) -> dict[str, Any]:
    action = state.next_action()
    return {
        "match": match,
        "state": state,
        "action": action,
        "action_text": say(action.text),
        "seats": _seats(state, action.player),
        **_latest(state),
        "feed": _feed(match, cancelled),
        "tiebreak": tiebreak_text(state),
        "standings": _standings(state),
        "refusal": None,
        "spectator": True,
    }


def table_context(match: StoredMatch, state: MatchState, **extra: Any) -> dict[str, Any]:
    """Everything the table templates read; they compute nothing themselves."""
    tie_text = extra.pop("tie_pick", "")
    names = state.players
    context = _board(match, state, _cancelled(match))
    context.update(
        {
            "turn_partials": turn_partials(state),
            "undo_label": _undo_label(match),
            **_redo(match),
            "urls": {
                "matches.record": url_for("matches.record", match_id=match.id),
                "matches.undo": url_for("matches.undo", match_id=match.id),
                "matches.redo": url_for("matches.redo", match_id=match.id),
                "matches.showdown": url_for("matches.showdown", match_id=match.id),
                "matches.entry": url_for("matches.entry", match_id=match.id),
            },
            "entry_style": entry_style(),
            "declarations": [  # "So far:" each as the feed says it: "Bo declared two pair", "Cia passed"
                say(describe_words(Declare(names[d.seat], d.hand) if d.hand else Pass(names[d.seat])))
                for d in state.declarations
            ],
            "all_hands": DECLARABLE,
            "legal": set(state.legal_hands()),
            "used_cards": _used_cards(state),
            "participants": [names[s] for s in state.order],
            "ranks": RANK_LABELS,
            "footer": _footer(match),
            "watch_token": roles.watch_token(match.id),
            "typed": {},  # a refused form's fields by its action (forms.typed_back), shown again
            "spectator": False,
        }
    )
    if state.speaker is not None:
        context["quick_grid"] = quick_grid(state)
        context["first_speaker"] = names[state.speaker]
        context["tie_row"] = tie_row(state, tie_text)
    if state.chicago_open:
        context["chicago_options"] = options = _chicago_options(state)
        context["chicago_callable"] = any(option["enabled"] for option in options)
        context["chicago_scores"] = ", ".join(f"{names[s]} {state.scores[s]}" for s in state.order)
    context["trick_number"] = len(state.tricks) + 1
    if state.tie is not None:
        context["tied"] = [names[s] for s in state.tie.seats]
        missing = [names[s] for s in state.tie.seats if state.tie.cards_of(s) is None]
        context["tie_next"] = missing[0] if missing else None
    if state.phase1 is not None:
        context["scorer"] = names[state.phase1.seat]
    exchanger = state.next_exchanger
    context["exchanger"] = None if exchanger is None else names[exchanger]
    if exchanger is not None:
        most = state.exchange_max(exchanger)
        context["exchange_counts"] = [(n, most is not None and n <= most) for n in range(HAND_SIZE + 1)]
    context["round_summary"] = _round_summary(state)
    context.update(extra)
    return context


def _footer(match: StoredMatch) -> Markup:
    """The table's footer (the match's rules, its links): the same at every tap, so rendered once per
    match, language and mount point, and kept."""

    def rendered() -> Markup:
        rules = match.rules
        summary = {"house_rules": house_rules(rules), "rules_summary": rules_summary(rules)}
        return Markup(render_template("matches/_footer.html", match=match, **summary))

    return cache().kept("footer", (match.id, str(get_locale()), request.script_root), rendered, text_size)


def _undo_label(match: StoredMatch) -> str | None:
    """What one undo takes back: the latest tap still in effect, said short (a showdown: what decided it)."""
    tap = match.latest_tap()
    return say(step_words(match.events, tap)) if tap else None


def _redo(match: StoredMatch) -> dict[str, Any]:
    """What "Redo" records again, for a few seconds after an undo (None: nothing), and how many are left.

    The seconds are counted from the undo's stored time: a page loaded later offers no redo.
    """
    undone = match.undone_step()
    if not undone:
        return {"redo_label": None}
    undone_at = datetime.fromisoformat(match.recorded_at[-1])
    left = REDO_SECONDS - (datetime.now(UTC) - undone_at).total_seconds()
    if left <= 0:
        return {"redo_label": None}
    return {"redo_label": say(step_words(match.events, undone)), "redo_left": math.ceil(left)}


def _standings(state: MatchState) -> list[tuple[str, int]]:
    """A finished match's final totals, the winner first, then by total (seat order where equal)."""
    if not state.is_finished:
        return []
    order = sorted(range(len(state.players)), key=lambda seat: (seat != state.winner, -state.scores[seat]))
    return [(state.players[seat], state.scores[seat]) for seat in order]


def tiebreak_text(state: MatchState) -> str | None:
    """During a tie-break round (RULES.md, Winning): who plays it, and who sits out."""
    if not state.tiebreak or state.is_finished:
        return None
    locale = get_locale()
    playing = format_list([state.players[s] for s in state.order], locale=locale)
    out = [name for seat, name in enumerate(state.players) if seat not in state.order]
    if not out:
        return str(_("%(players)s were level, so they play one more round.", players=playing))
    sentence = ngettext(
        "%(players)s were level, so they play one more round; %(out)s sits out.",
        "%(players)s were level, so they play one more round; %(out)s sit out.",
        len(out),
        players=playing,
        out=format_list(out, locale=locale),
    )
    return str(sentence)


def _round_summary(state: MatchState) -> str | None:
    """At the start of a round, what the round before brought each player."""
    if state.round < 2 or state.phase != 1 or state.declarations or state.exchanged:
        return None
    gained = dict.fromkeys(state.players, 0)
    for change in state.iter_changes():
        if change.round < state.round - 1:
            break
        if change.round == state.round - 1:
            gained[state.players[change.seat]] += change.delta
    return ", ".join(f"{name} {delta:+d}" for name, delta in gained.items())
