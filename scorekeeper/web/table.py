"""What the scoring screen shows, worked out once from the match state for the templates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import url_for
from flask_babel import gettext as _

from scorekeeper.feed import change_words, describe_words, undo_words
from scorekeeper.hands import DECLARABLE
from scorekeeper.match import undo_walk
from scorekeeper.refusals import Refusal, RuleBroken
from scorekeeper.state import MatchState, Stage
from scorekeeper.web import capabilities
from scorekeeper.web.i18n import hand_name, refusal_text, rules_summary, say
from scorekeeper.web.storage import StoredMatch

FEED_LENGTH = 12


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
            dealer=seat == state.dealer,
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


def _feed(match: StoredMatch, cancelled: dict[int, int], length: int = FEED_LENGTH) -> list[FeedEntry]:
    events = match.events
    gone = set(cancelled.values())
    entries = []
    for index in range(len(events) - 1, max(-1, len(events) - 1 - length), -1):
        text = say(describe_words(events[index]))
        if index in cancelled:
            text = say(undo_words(events[cancelled[index]]))
        entries.append(FeedEntry(index, text, match.recorded_at[index][11:16], index in gone))
    return entries


def _chicago_options(state: MatchState) -> list[dict[str, Any]]:
    options = []
    for seat in state.order:
        name, score = state.players[seat], state.scores[seat]
        reason = ""
        if score < state.rules.chicago_min:
            reason = refusal_text(
                RuleBroken(Refusal.CHICAGO_MIN, player=name, score=score, min=state.rules.chicago_min)
            )
        options.append({"name": name, "enabled": state.can_call_chicago(seat), "reason": reason})
    return options


def _used_cards(state: MatchState) -> set[str]:
    used = {repr(c) for d in state.declarations if d.cards for c in d.cards}
    if state.tie is not None:
        used |= {repr(c) for _, cards in state.tie.cards for c in cards}
    return used


def table_context(match: StoredMatch, state: MatchState, **extra: Any) -> dict[str, Any]:
    """Everything the table templates read; they compute nothing themselves."""
    action = state.next_action()
    names = state.players
    kept, cancelled = undo_walk(match.events)
    context: dict[str, Any] = {
        "match": match,
        "state": state,
        "action": action,
        "action_text": say(action.text),
        "seats": _seats(state, action.player),
        "stage": state.stage.value,
        "last_change": say(change_words(state, state.last_change)) if state.last_change else None,
        "outcome": say(state.outcome.words) if state.outcome else None,
        "undo_label": say(describe_words(match.events[kept[-1]])) if kept else None,
        "feed": _feed(match, cancelled),
        "urls": {
            "matches.record": url_for("matches.record", match_id=match.id),
            "matches.undo": url_for("matches.undo", match_id=match.id),
        },
        "declarations": [
            (names[d.seat], hand_name(d.hand) if d.hand else _("pass")) for d in state.declarations
        ],
        "all_hands": DECLARABLE,
        "legal": set(state.legal_hands()),
        "used_cards": _used_cards(state),
        "participants": [names[s] for s in state.order],
        "rules_summary": rules_summary(state.rules),
        "watch_token": capabilities.watch_token(match.id),
        "refusal": None,
        "spectator": False,
    }
    if state.stage in (Stage.EXCHANGE, Stage.TRICKS) and state.phase == 3:
        context["chicago_options"] = _chicago_options(state)
        context["chicago_scores"] = ", ".join(f"{names[s]} {state.scores[s]}" for s in state.order)
        context["trick_number"] = len(state.tricks) + 1
    if state.tie is not None:
        context["tied"] = [names[s] for s in state.tie.seats]
        missing = [names[s] for s in state.tie.seats if state.tie.cards_of(s) is None]
        context["tie_next"] = missing[0] if missing else None
    if state.phase1 is not None:
        context["scorer"] = names[state.phase1.seat]
        # RULES.md, Phase 2: the phase-1 scorer shows the hand before exchanging (optional to enter).
        context["show_due"] = (
            state.phase == 2
            and state.stage is Stage.EXCHANGE
            and not state.shown
            and state.phase1.seat not in state.exchanged
        )
    context["exchanger"] = names[state.next_exchanger] if state.next_exchanger is not None else None
    context["round_summary"] = _round_summary(state)
    context.update(extra)
    return context


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
