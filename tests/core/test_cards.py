"""Cards and hands as MATCH_FORMAT.md writes them (section "Names")."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper.cards import DECK, CardError, Rank, Suit, format_hand, parse_card, parse_cards, parse_hand

SPELLINGS = [
    ("Ts", Rank.TEN, Suit.SPADES),
    ("10s", Rank.TEN, Suit.SPADES),
    ("10♠", Rank.TEN, Suit.SPADES),
    ("tS", Rank.TEN, Suit.SPADES),
    ("qh", Rank.QUEEN, Suit.HEARTS),
    ("Q♥", Rank.QUEEN, Suit.HEARTS),
    ("2d", Rank.TWO, Suit.DIAMONDS),
    ("2♦", Rank.TWO, Suit.DIAMONDS),
    ("aC", Rank.ACE, Suit.CLUBS),
    ("A♣", Rank.ACE, Suit.CLUBS),
    ("9c", Rank.NINE, Suit.CLUBS),
    ("k♠", Rank.KING, Suit.SPADES),
    ("j♦", Rank.JACK, Suit.DIAMONDS),
    (" 7h ", Rank.SEVEN, Suit.HEARTS),
]


@pytest.mark.parametrize(("text", "rank", "suit"), SPELLINGS, ids=[s[0].strip() for s in SPELLINGS])
def test_every_spelling_of_the_format_is_read(text, rank, suit):
    card = parse_card(text)
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("text", ["1x", "11s", "1s", "Ts♠", "Q", "10", "", "Xh", "Qz", "0s", "♠Q"])
def test_a_bad_card_is_named_in_the_error(text):
    with pytest.raises(CardError, match=f"“{text.strip()}” is not a card"):
        parse_card(text)


def test_the_canonical_form_is_rank_letter_then_lower_case_suit():
    assert repr(parse_card("10♥")) == "Th"
    assert format_hand(parse_hand("10♥ J♥ Q♥ K♥ A♥")) == "Th Jh Qh Kh Ah"


def test_a_hand_may_be_separated_by_spaces_or_commas():
    assert parse_hand("Qs,Qh, 9c  9d,2s") == parse_hand("Qs Qh 9c 9d 2s")


@pytest.mark.parametrize("text", ["Qs Qh 9c 9d", "Qs Qh 9c 9d 2s 3s", ""])
def test_a_hand_is_exactly_five_cards(text):
    with pytest.raises(CardError, match="A hand is five cards"):
        parse_hand(text)


def test_a_hand_with_a_card_twice_is_refused():
    with pytest.raises(CardError, match="Q♠ is in the hand twice"):
        parse_hand("Qs Qh 9c qS 2s")


def test_a_bad_card_in_a_hand_is_named():
    with pytest.raises(CardError, match="“1x” is not a card"):
        parse_hand("Qs Qh 1x 9d 2s")


def test_the_deck_has_52_different_cards():
    assert len(set(DECK)) == 52
    assert len({c.index for c in DECK}) == 52


def test_cards_and_labels_for_people():
    assert parse_card("Th").label == "10♥"
    assert parse_cards("As kd") == (parse_card("As"), parse_card("Kd"))


@given(st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True), st.booleans())
def test_format_then_parse_gives_the_same_cards(cards, with_commas):
    text = format_hand(cards)
    if with_commas:
        text = text.replace(" ", ", ")
    assert parse_hand(text) == tuple(cards)
    assert format_hand(parse_hand(text)) == format_hand(cards)


@given(st.sampled_from(DECK), st.sampled_from(["upper", "lower", "symbol", "ten"]))
def test_any_spelling_of_a_card_formats_canonically(card, style):
    text = repr(card)
    if style == "upper":
        text = text.upper()
    elif style == "lower":
        text = text.lower()
    elif style == "symbol":
        text = text[0] + card.suit.symbol
    elif card.rank is Rank.TEN:
        text = "10" + text[1]
    assert parse_card(text) == card
    assert repr(parse_card(text)) == repr(card)
