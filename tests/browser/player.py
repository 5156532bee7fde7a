"""Play a recorded match through the real app in a browser, and count every tap it takes.

A match file says what happened at the table; ``quickest`` turns it into what
a scorekeeper who makes no mistake taps on the phone by the quickest legal
entry, and ``detailed`` into the same match entered declaration by
declaration, every event in effect through its own form. ``Table.play``
then taps it into the app: every click and every field filled counts as one
tap, against the round it belongs to (round 0 is the setup).

Used by the browser tests and by ``bench/taps.py``.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from browsertools import SETTLED, scores, wait_until

from scorekeeper.cards import format_hand
from scorekeeper.events import (
    Adjust,
    Blanco,
    Chicago,
    Dealer,
    Declare,
    Draw,
    Event,
    Exchange,
    LastTrick,
    Pass,
    Show,
    Tie,
    Trick,
)
from scorekeeper.hands import Category
from scorekeeper.match import apply, in_effect
from scorekeeper.matchfile import MatchFile
from scorekeeper.quick import showdown_events
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState

SHOWDOWN_EVENTS = (Declare, Pass, Tie)
TRICK_EVENTS = (Trick, LastTrick)


@dataclass(frozen=True)
class Step:
    """One thing the scorekeeper does on the phone, in the round it belongs to.

    ``kind`` is ``quick`` (one tap for a whole showdown: ``event`` is the
    declaration that scored, or None when nobody scored), ``quicktie`` (a tie on the
    grid: ``event`` declares first, ``others`` the same hand) or ``event`` (one
    event through its own form: ``event`` says which).
    """

    kind: str
    round: int
    event: Event | None
    others: tuple[
        str, ...
    ] = ()  # ``quicktie``: the other tied players (``event`` is the first one's declaration)
    winner: str | None = None  # ``quicktie``: the verdict (None: identical hands)


@dataclass(frozen=True)
class RoundKind:
    """What a round held that costs taps beyond the usual: ties, a Chicago call, corrections."""

    ties: int = 0
    chicago: bool = False
    corrections: int = 0
    complete: bool = False
    tiebreak: bool = False


@dataclass(frozen=True)
class Plan:
    """A match as taps: the new-match form, then the steps."""

    name: str
    players: tuple[str, ...]
    rules: Rules
    dealer: str | None  # picked in the new-match form; None: draw for it on the table
    steps: tuple[Step, ...]
    rounds: dict[int, RoundKind]
    expected: dict[str, int]  # the file's totals


def _states(file: MatchFile, events: Sequence[Event]) -> list[MatchState]:
    """The state before each event, and after the last."""
    state = MatchState.start(file.players, file.rules)
    states = [state]
    for event in events:
        state = apply(state, event)
        states.append(state)
    return states


def _rounds(events: Sequence[Event], states: Sequence[MatchState]) -> dict[int, RoundKind]:
    """Each round's ties (showdowns whose best category was declared twice), Chicago and corrections."""
    ties: Counter[int] = Counter()
    chicago: set[int] = set()
    corrections: Counter[int] = Counter()
    for index, event in enumerate(events):
        before, after = states[index], states[index + 1]
        if isinstance(event, Chicago):
            chicago.add(before.round)
        elif isinstance(event, Adjust):
            corrections[before.round] += 1
        if after.tie is not None and before.tie is None:
            ties[before.round] += 1
        elif isinstance(event, SHOWDOWN_EVENTS) and after.outcome is not before.outcome:
            best = [d for d in before.declarations if d.hand is not None]
            last = event.hand if isinstance(event, Declare) else None
            hands = [d.hand for d in best] + ([last] if last else [])
            top = max(hands, key=lambda h: h.order) if hands else None
            if before.tie is None and top is not None and hands.count(top) > 1:
                ties[before.round] += 1  # settled at once by the cards declared with the hands
    final = states[-1]
    done = final.round if final.is_finished else final.round - 1
    tiebreak = {s.round for s in states if s.tiebreak}
    return {
        r: RoundKind(ties[r], r in chicago, corrections[r], r <= done, r in tiebreak)
        for r in range(1, final.round + 1)
    }


def _setup(file: MatchFile, events: Sequence[Event]) -> int:
    """How many events choose the first dealer (draws or one ``dealer``)."""
    count = 0
    while count < len(events) and isinstance(events[count], Draw | Dealer):
        count += 1
    return count


def _kept(file: MatchFile) -> list[Event]:
    return [file.events[i] for i in in_effect(file.events)]


def quickest(file: MatchFile, name: str = "", start: int | None = None) -> Plan:
    """The quickest legal entry of the match, as a scorekeeper who makes no mistake taps it.

    - The first dealer is picked in the new-match form (the draw's result, if the file drew).
    - Exchanges and shows are optional: skipped.
    - A showdown with no tie for the best hand: one tap on the grid (who scored with what),
      or "nobody scores". Corrections recorded during it go first: no points change
      before a showdown ends, so the totals (and the floor at 0) come out the same.
    - A showdown with a tie: the name of the hand on the grid, then the tied players' verdict
      (who was higher, or identical), whatever the file settled it by; a tie of three or
      more opens its list first when there is more than one such group.
    - Chicago: one tap; the trick play: one tap on who took the last trick (for a
      failed Chicago, the player who broke it), with the card typed when the house
      rule "last trick with a 2 doubles" needs it.
    - A correction: the correction form as it comes.

    ``start``: the steps from that event on (a step's first), for a match imported up to it.
    """
    events = _kept(file)
    states = _states(file, events)
    first = _setup(file, events)
    steps: list[Step] = []
    i = first if start is None else start
    while i < len(events):
        event, state = events[i], states[i]
        if isinstance(event, Exchange | Show):
            i += 1
        elif isinstance(event, SHOWDOWN_EVENTS):
            end = i
            while not (
                isinstance(events[end], SHOWDOWN_EVENTS)
                and states[end + 1].outcome is not states[end].outcome
            ):
                end += 1
            group = events[i : end + 1]
            outcome = states[end + 1].outcome
            assert outcome is not None
            declared = [e for e in group if isinstance(e, Declare)]
            best = max((e.hand for e in declared), key=lambda h: h.order, default=None)
            tied = [e for e in declared if e.hand is best]
            if len(tied) > 1:  # the hand's name on the grid, then the tied players' verdict
                steps += [Step("event", state.round, e) for e in group if isinstance(e, Adjust)]
                opener = Declare(tied[0].player, tied[0].hand)
                others = tuple(e.player for e in tied[1:])
                steps.append(Step("quicktie", state.round, opener, others, outcome.player))
            else:
                steps += [Step("event", state.round, e) for e in group if isinstance(e, Adjust)]
                scored = Declare(tied[0].player, tied[0].hand) if tied else None
                steps.append(Step("quick", state.round, scored))
            i = end + 1
        elif isinstance(event, TRICK_EVENTS):
            end = i
            while not states[end + 1].tricks_over:
                end += 1
            group = events[i : end + 1]
            steps += [Step("event", state.round, e) for e in group if isinstance(e, Adjust)]
            last = group[-1]
            assert isinstance(last, TRICK_EVENTS)
            card = last.card if file.rules.deuce_last_trick_double and state.chicago is None else None
            steps.append(Step("event", state.round, LastTrick(last.winner, card)))
            i = end + 1
        else:  # Chicago, Adjust
            steps.append(Step("event", state.round, event))
            i += 1
    dealer = states[first].dealer_name
    return Plan(
        name, file.players, file.rules, dealer, tuple(steps), _rounds(events, states), file.replay().totals
    )


def detailed(file: MatchFile, name: str = "", start: int | None = None) -> Plan:
    """The match declaration by declaration: every event in effect through its own form, as recorded
    (``start``: from that event on, for a match imported up to it)."""
    events = _kept(file)
    states = _states(file, events)
    first = _setup(file, events)
    dealer = events[0].player if first == 1 and isinstance(events[0], Dealer) else None
    setup = [] if dealer is not None or start is not None else [Step("event", 0, e) for e in events[:first]]
    first = first if start is None else start
    steps = setup + [Step("event", states[i].round, events[i]) for i in range(first, len(events))]
    return Plan(
        name, file.players, file.rules, dealer, tuple(steps), _rounds(events, states), file.replay().totals
    )


def events_of(plan: Plan) -> list[Event]:
    """The events the app records for a plan, worked out without a browser (a quick tap as the app expands it)."""
    events: list[Event] = [] if plan.dealer is None else [Dealer(plan.dealer)]
    state = MatchState.start(plan.players, plan.rules)
    for event in events:
        state = apply(state, event)
    for step in plan.steps:
        if step.kind in ("quick", "quicktie"):
            declared = step.event
            assert declared is None or isinstance(declared, Declare)
            player, hand = (None, None) if declared is None else (declared.player, declared.hand)
            tied = step.others
            taken: tuple[Event, ...] = showdown_events(state, player, hand, tied)
            if step.kind == "quicktie":
                taken += (Tie(winner=step.winner),)
        else:
            assert step.event is not None
            taken = (step.event,)
        for event in taken:
            state = apply(state, event)
            events.append(event)
    return events


# Random matches that look like a real table, from tests/simulate.py.

HAND_WEIGHT = {
    Category.PAIR: 1.0,
    Category.TWO_PAIR: 0.7,
    Category.THREE_OF_A_KIND: 0.45,
    Category.STRAIGHT: 0.3,
    Category.FLUSH: 0.25,
    Category.FULL_HOUSE: 0.2,
    Category.FOUR_OF_A_KIND: 0.06,
    Category.STRAIGHT_FLUSH: 0.02,
    Category.ROYAL_FLUSH: 0.004,
}


def _table_weight(event: Event) -> float:
    """How likely a candidate is at a real table: high hands rare, no corrections at random."""
    if isinstance(event, Adjust):
        return 0.0
    if isinstance(event, Show):
        return 0.2
    if isinstance(event, Exchange):
        return 0.5
    if isinstance(event, Declare):
        return HAND_WEIGHT[event.hand] * (0.3 if event.cards else 1.0)
    if isinstance(event, Chicago):
        return 0.4
    return 1.0


def simulated(seed: int, players: tuple[str, ...], table: bool = True) -> MatchFile:
    """A whole match to 52 by random legal play (``simulate.random_events``), seeded.

    ``table`` weighs the generator's candidates like a real table (``_table_weight``);
    without it every candidate is as likely, corrections included.
    """
    from simulate import random_events

    rng = random.Random(seed)

    def pick(options: Sequence[Event]) -> Event:
        if not table:
            return rng.choice(options)
        return rng.choices(options, [_table_weight(o) for o in options])[0]

    events, states = random_events(players, Rules(), pick, 5000, undo=False)
    if not states[-1].is_finished:
        raise ValueError(f"seed {seed}: the match did not finish")
    return MatchFile(players, Rules(), tuple(events))


# Tapping it in.


@dataclass(frozen=True)
class Swap:
    """One post's answer: what it was, and its body's bytes (as sent, and on the wire)."""

    kind: str  # quick, detail (a declaration or a pass), entry (a switch of style), or the form's type
    raw: int
    wire: int
    round: int = 0


@dataclass
class Played:
    """What playing a plan took and showed."""

    url: str = ""
    taps: Counter[int] = field(default_factory=Counter)  # by round; 0 is the setup
    swaps: list[Swap] = field(default_factory=list)
    styles: dict[str, Swap] = field(default_factory=dict)  # one showdown screen in each style (not counted)
    grid: int = 0  # the bytes of the one-tap grid's form on that screen
    totals: dict[str, int] = field(default_factory=dict)  # the scoreboard at the end

    @property
    def total(self) -> int:
        return sum(self.taps.values())


class Refused(AssertionError):
    """The app refused a step the file says is legal: a bug, never to be hidden."""


class Table:
    """The scorekeeper's phone: taps a plan into the app and counts each click and field."""

    def __init__(self, page, server: str) -> None:
        self.page = page
        self.server = server
        self.played = Played()
        self.round = 0
        self.tie_cards: dict[str, tuple] = {}

    # Counted gestures.

    def click(self, locator) -> None:
        self.played.taps[self.round] += 1
        locator.click()

    def fill(self, locator, text: str) -> None:
        self.played.taps[self.round] += 1
        locator.fill(text)

    def post(self, locator, kind: str, counted: bool = True) -> Swap:
        """Tap a button that posts; wait for the swap; keep its size; fail on a refusal."""
        page = self.page
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            if counted:
                self.click(locator)
            else:
                locator.click()
        response = answer.value
        wait_until(page, SETTLED)
        swap = Swap(kind, len(response.body()), response.request.sizes()["responseBodySize"], self.round)
        refusal = page.locator("#table p.refusal")
        if refusal.count():
            raise Refused(f"{kind}: the app refused: {refusal.inner_text()}")
        if counted:
            self.played.swaps.append(swap)
        return swap

    def compare_styles(self) -> None:
        """Show the showdown screen open now in both styles (taps not counted), back to the one-tap grid."""
        for style in ("detail", "quick"):
            toggle = self.page.locator(f"#turn form.entry-style button[value={style}]")
            self.played.styles[style] = self.post(toggle, "entry", counted=False)
        self.played.grid = len(
            self.page.evaluate("document.querySelector('#turn form.quick').outerHTML").encode()
        )

    # The match.

    def play(self, plan: Plan, compare_styles: bool = False) -> Played:
        """Tap the plan in; ``compare_styles`` also weighs the first one-tap screen against the detailed one."""
        self.new_match(plan)
        self.tap_steps(plan, compare_styles)
        self.played.totals = scores(self.page)
        return self.played

    def tap_steps(self, plan: Plan, compare_styles: bool = False) -> None:
        """Tap the plan's steps into the match open on the page."""
        for step in plan.steps:
            self.round = step.round
            if step.kind == "quick" and compare_styles and not self.played.styles:
                self.style("quick")
                self.compare_styles()
            if step.kind == "quick":
                self.quick(step.event)
            elif step.kind == "quicktie":
                self.quick_tie(step.event, step.others, step.winner)
            else:
                self.record(step.event)

    def new_match(self, plan: Plan) -> None:
        """The new-match form: each name typed, the house rules changed, the dealer picked, Start."""
        page = self.page
        page.goto(self.server + "/new")
        form = page.locator("form.new-match")
        for i, name in enumerate(plan.players[:4]):
            self.fill(form.locator("input[name=name]").nth(i), name)
        self.house_rules(plan.rules)
        for i, name in enumerate(plan.players[4:], start=4):  # seats 5 and 6: "Five or six players" ticked
            self.fill(form.locator("input[name=name]").nth(i), name)
        if plan.dealer is not None:
            seat = plan.players.index(plan.dealer)
            self.click(form.locator(f"input[name=dealer][value='{seat}']"))
        self.click(form.get_by_role("button", name="Start the match"))
        page.wait_for_url(re.compile(r"/m/[^/]+$"))
        self.played.url = page.url

    def house_rules(self, rules: Rules) -> None:
        changed = rules.to_dict()
        if not changed:
            return
        form = self.page.locator("form.new-match")
        self.click(form.locator("details.house-rules summary"))
        for key, value in changed.items():
            if key == "points":
                for hand, points in value.items():
                    self.fill(form.locator(f"input[name='points.{hand}']"), str(points))
            elif key == "win":
                self.played.taps[self.round] += 1
                form.locator("select[name=win]").select_option(value)
            elif isinstance(value, bool):
                self.click(form.locator(f"input[name={key}]"))
            elif key in (
                "blanco_chicago",
                "chicago_break_bonus",
            ):  # the variant's box, and its value if not the usual
                self.click(form.locator(f"input[name={key}]"))
                field = form.locator(f"input[name='{key}.points']")
                if field.input_value() != str(value):
                    self.fill(field, str(value))
            elif key == "phases":
                self.click(form.locator("input[name=phases]"))
            elif key == "instant_win":
                for hand in value:
                    self.click(form.locator(f"input[name=instant_win][value={hand}]"))
            else:
                self.fill(form.locator(f"input[name={key}]"), "" if value is None else str(value))

    def style(self, wanted: str) -> None:
        """Switch the showdown screen to ``quick`` or ``detail`` if it shows the other one (a tap)."""
        toggle = self.page.locator(f"#turn form.entry-style button[value={wanted}]")
        if toggle.count():
            self.post(toggle, "entry")

    def quick(self, declared: Event | None) -> None:
        """One tap for the whole showdown."""
        self.style("quick")
        if declared is None:
            self.post(self.page.locator("#turn button.nobody"), "quick")
            return
        assert isinstance(declared, Declare)
        self.open_rare(declared.hand.value)
        cell = self.page.locator(f"#turn .quick-grid button[value='{declared.hand.value}:{declared.player}']")
        if cell.is_disabled():
            raise Refused(f"the grid's cell {declared.player} · {declared.hand.value} is disabled")
        self.post(cell, "quick")

    def get(self, locator) -> None:
        """Tap a link that htmx loads into the table (a view, nothing recorded)."""
        with self.page.expect_response(lambda r: r.request.method == "GET" and "/m/" in r.url):
            self.click(locator)
        wait_until(self.page, SETTLED)

    def open_rare(self, hand: str) -> None:
        """The rarest hands sit behind a row of their own: open it (a tap) when the hand is one of them."""
        if hand in ("four_of_a_kind", "straight_flush", "royal_flush"):
            closed = self.page.locator("#turn details.quick-rare:not([open]) summary")
            if closed.count():
                self.click(closed)

    def quick_tie(self, first: Event | None, others: tuple[str, ...], winner: str | None) -> None:
        """A tie on the grid: the name of the hand they declared, then the tied players' verdict."""
        assert isinstance(first, Declare)
        self.style("quick")
        self.open_rare(first.hand.value)
        self.get(self.page.locator(f"#turn .quick-grid a.quick-hand[href$='?tie={first.hand.value}']"))
        kind = "form.tie-pair" if len(others) == 1 else f"form.tie-group.of-{len(others) + 1}"
        chosen = "".join(f":has(input[name=with][value='{name}'])" for name in others)
        form = self.page.locator(
            f"#turn {kind}:has(input[name=tap][value='{first.hand.value}:{first.player}']){chosen}"
        )
        if len(others) > 1:
            closed = self.page.locator("#turn details.tie-more:not([open]) summary")
            if closed.count():
                self.click(closed)
        self.post(form.locator(f"button[name=winner][value='{winner or ''}']"), "quick")

    def record(self, event: Event | None) -> None:
        page = self.page
        turn = page.locator("#turn")
        match event:
            case Draw(cards=cards):
                for player, card in cards.items():  # a tap on the rank each drew
                    self.played.taps[self.round] += 1  # the rank each drew, from its list
                    turn.locator(f"select[name='draw.{player}']").select_option(card.rank.label)
                self.post(turn.get_by_role("button", name="Record the draw"), "draw")
            case Exchange(player=player, count=count):
                assert player in turn.locator(".exchange h2").inner_text()
                self.post(turn.locator(f"form.counts button[value='{count}']"), "exchange")
            case Show(player=player, cards=cards):
                show = turn.locator(".show")
                self.click(show.locator("details.picker summary"))
                self.fill(show.locator("input[name=cards]"), format_hand(cards))
                self.post(show.get_by_role("button", name=f"Check {player}'s cards"), "show")
            case Declare(player=player, hand=hand, cards=cards):
                self.style("detail")
                assert player in turn.locator(".declare h2").inner_text()
                form = turn.locator("form.hands")
                if cards is not None:
                    self.click(form.locator("details.picker summary"))
                    self.fill(form.locator("input[name=cards]"), format_hand(cards))
                self.post(form.locator(f"button[name=hand][value={hand.value}]"), "detail")
            case Pass(player=player):
                self.style("detail")
                self.post(turn.get_by_role("button", name=f"{player} passes", exact=True), "detail")
            case Tie(cards=None, winner=winner):
                verdict = f"form:has(input[name=type][value=tie]) button[name=winner][value='{winner or ''}']"
                self.post(turn.locator(verdict), "tie")
            case Tie(cards=cards):
                self.tie_cards.update(cards)
                form = turn.locator("form.tie-cards")
                while form.count():
                    player = form.locator("input[name=player]").get_attribute("value")
                    if player not in self.tie_cards:
                        break  # its cards come in a later event of the file
                    self.fill(form.locator("input[name=cards]"), format_hand(self.tie_cards.pop(player)))
                    self.post(form.get_by_role("button", name=f"Enter {player}'s cards"), "tie")
            case Chicago(player=player):
                self.post(turn.get_by_role("button", name=f"{player} calls Chicago"), "chicago")
            case Blanco(player=player):
                self.post(turn.locator(f"form.blanco button[name=player][value='{player}']"), "blanco")
            case LastTrick(winner=winner, card=card):
                form = turn.locator("form.last-trick")
                if card is not None:
                    self.fill(form.locator("input[name=card]"), repr(card))
                self.post(form.locator(f"button[name=winner][value='{winner}']"), "last_trick")
            case Trick(winner=winner, card=card):
                closed = turn.locator("details.trick-by-trick:not([open]) summary")
                if closed.count():
                    self.click(closed)
                form = turn.locator(".tricks form:not(.last-trick)")
                if card is not None:
                    self.fill(form.locator("input[name=card]"), repr(card))
                self.post(form.locator(f"button[name=winner][value='{winner}']"), "trick")
            case Adjust(player=player, points=points, reason=reason):
                correct = page.locator("details.correct")
                self.click(correct.locator("summary"))
                select = correct.locator("select[name=player]")
                if select.input_value() != player:
                    self.played.taps[self.round] += 1
                    select.select_option(player)
                if points < 0:  # the sign is a choice of its own (a phone's keypad may have no minus)
                    self.click(correct.locator("input[name=sign][value=take]"))
                self.fill(correct.locator("input[name=points]"), str(abs(points)))
                if reason:
                    self.fill(correct.locator("input[name=reason]"), reason)
                self.post(correct.get_by_role("button", name="Record the correction"), "adjust")
            case _:
                raise AssertionError(f"no form for {event!r}")
