"""What the scoring screen shows, worked out once from the match state for the templates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from babel.lists import format_list
from flask import url_for

from scorekeeper.cards import Rank
from scorekeeper.events import Declare, Pass
from scorekeeper.feed import change_words, describe_words
from scorekeeper.hands import DECLARABLE
from scorekeeper.quick import calls_open
from scorekeeper.rules import won_with_words
from scorekeeper.state import HAND_SIZE, MatchState
from scorekeeper.web import roles
from scorekeeper.web.present.feed import cancelled_by, feed, footer, redo, undo_label
from scorekeeper.web.present.i18n import (
    get_locale,
    ngettext,
    say,
)
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.present.i18n import names as listed
from scorekeeper.web.present.turn import (
    chicago_options,
    entry_style,
    quick_grid,
    tie_row,
    turn_partials,
    used_cards,
)
from scorekeeper.web.store.stored import StoredMatch
from scorekeeper.words import signed

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
    context = _board(match, state, cancelled_by(match))
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
        "feed": feed(match, cancelled),
        "tiebreak": tiebreak_text(state),
        "standings": _standings(state),
        **variant_notes(state),
        "refusal": None,
        "spectator": True,
    }


def table_context(match: StoredMatch, state: MatchState, **extra: Any) -> dict[str, Any]:
    """Everything the table templates read; they compute nothing themselves."""
    tie_text = extra.pop("tie_pick", "")
    names = state.players
    context = _board(match, state, cancelled_by(match))
    context.update(
        {
            "turn_partials": turn_partials(state),
            "undo_label": undo_label(match),
            **redo(match),
            "urls": {
                "matches.record": url_for("matches.record", match_id=match.id),
                "matches.undo": url_for("matches.undo", match_id=match.id),
                "matches.redo": url_for("matches.redo", match_id=match.id),
                "matches.showdown": url_for("matches.showdown", match_id=match.id),
                "matches.entry": url_for("matches.entry", match_id=match.id),
            },
            "entry_style": entry_style(),
            "declarations": listed(  # "So far": each as the feed says it: "Bo declared a pair", "Cia passed"
                say(describe_words(Declare(names[d.seat], d.hand) if d.hand else Pass(names[d.seat])))
                for d in state.declarations
            ),
            "all_hands": DECLARABLE,
            "legal": set(state.legal_hands()),
            "used_cards": used_cards(state),
            "participants": [names[s] for s in state.order],
            "ranks": RANK_LABELS,
            "footer": footer(match),
            "watch_token": roles.watch_token(match.id),
            "typed": {},  # a refused form's fields by its action (forms.typed_back), shown again
            "spectator": False,
        }
    )
    if state.speaker is not None:
        context["quick_grid"] = quick_grid(state)
        context["first_speaker"] = names[state.speaker]
        context["tie_row"] = tie_row(state, tie_text)
    context["blanco_callers"] = calls_open(state).get("blanco", ())  # the variant's call, when legal
    if state.chicago_open:
        context["chicago_options"] = options = chicago_options(state)
        context["chicago_callable"] = any(option["enabled"] for option in options)
        context["chicago_scores"] = listed(f"{names[s]} {state.scores[s]}" for s in state.order)
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


def variant_notes(state: MatchState) -> dict[str, Any]:
    """What the variants of RULES.md make the board say: who plays on without the Chicago they need
    (``chicago_to_win``), and the hand that won the match at once (``instant_win``)."""
    won = state.won_with
    won_with = (
        None if won is None or state.winner_name is None else say(won_with_words(state.winner_name, won))
    )
    return {"needs_chicago": [say(words) for words in state.needs_chicago_words()], "won_with": won_with}


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
        return str(_("%(players)s were tied, so they play one more round.", players=playing))
    sentence = ngettext(
        "%(players)s were tied, so they play one more round; %(out)s sits out.",
        "%(players)s were tied, so they play one more round; %(out)s sit out.",
        len(out),
        players=playing,
        out=format_list(out, locale=locale),
    )
    return str(sentence)


def _round_summary(state: MatchState) -> str | None:
    """At the start of a round, what the round before brought each player whose total it changed
    ("" when it changed nobody's: a player it left as they were is not listed as "+0")."""
    if state.round < 2 or state.phase != 1 or state.declarations or state.exchanged:
        return None
    gained = dict.fromkeys(state.players, 0)
    for change in state.iter_changes():
        if change.round < state.round - 1:
            break
        if change.round == state.round - 1:
            gained[state.players[change.seat]] += change.delta
    return listed(f"{name} {signed(delta)}" for name, delta in gained.items() if delta)
