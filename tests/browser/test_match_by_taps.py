"""A whole match scored by taps at phone size, with the live view following along (issue 3)."""

import pytest
from browsertools import (
    SETTLED,
    all_pass,
    button,
    declare,
    draw_for_deal,
    pass_,
    pick_cards,
    scores,
    start_match,
    tap,
    trick,
    wait_until,
)

pytestmark = pytest.mark.browser


def test_a_whole_match_from_the_draw_to_the_winner(page, other_phone, server, screens):
    start_match(page, server, "Anna", "Bo", "Cia")
    screens(page, "draw")
    page.locator("footer.links a[href$='/handover']").click()
    watch_url = page.locator(".link-box a").first.get_attribute("href")
    page.go_back()
    live = other_phone.new_page()
    live.goto(watch_url)

    # The draw: Anna and Bo tie for the lowest, draw again; Bo deals, Cia speaks first.
    draw_for_deal(page, Anna="3", Bo="3", Cia="K")
    assert "only the tied players draw again" in page.locator("#turn").inner_text()
    screens(page, "draw-again")
    draw_for_deal(page, Anna="5", Bo="2")
    assert "Round 1 · phase 1 · Bo deals" in page.locator(".where").inner_text()
    screens(page, "phase-1")

    # Phase 1: an exchange, then a tie for two pair decided by the cards, tapped in.
    tap(page, page.locator(".counts button[value='2']"))
    declare(page, "Cia", "two_pair")
    declare(page, "Anna", "two_pair")
    pass_(page, "Bo")
    assert "Tie: Cia and Anna declared two pair" in page.locator("#turn").inner_text()
    pick_cards(page, "tie", "Ks Kh 4c 4d 2s")
    screens(page, "tie-cards")
    tap(page, button(page, "Enter Cia's cards"))
    pick_cards(page, "tie", "Kd Kc 4h 4s 9s")
    tap(page, button(page, "Enter Anna's cards"))
    assert "higher kicker, 9 against 2" in page.locator("#scoreboard").inner_text()
    assert scores(page) == {"Anna": 2, "Bo": 0, "Cia": 0}
    screens(page, "tie-settled")

    # Phase 2: Anna shows a hand that is only a pair; the points are taken back.
    page.locator(".show summary").click()
    pick_cards(page, "show", "Kd Kc 4h 3s 9s")
    tap(page, button(page, "Check Anna's cards"))
    screens(page, "show-unsupported")
    tap(page, button(page, "Not two pair: take back 2 from Anna"))
    assert scores(page)["Anna"] == 0
    pass_(page, "Cia")
    declare(page, "Anna", "flush")
    pass_(page, "Bo")

    # Phase 3: nobody may call Chicago yet; five tricks, the last one scores; the last showdown.
    assert page.locator(".chicago button").count() == 0
    assert (
        "No Chicago this round: it needs 15 points (Cia 0, Anna 5, and Bo 0)."
        in page.locator(".chicago").inner_text()
    )
    screens(page, "phase-3")
    for winner in ("Cia", "Anna", "Bo", "Bo", "Anna"):
        trick(page, winner)
    pass_(page, "Cia")
    pass_(page, "Anna")
    declare(page, "Bo", "straight")
    assert scores(page) == {"Anna": 10, "Bo": 4, "Cia": 0}
    screens(page, "round-2")
    wait_until(live, "() => document.querySelector('#board .seats').innerText.includes('10')", timeout=3)

    # Round 2 (Cia deals): a correction, then Bo calls Chicago and takes all five tricks.
    page.locator("details.correct summary").click()
    page.select_option("details.correct select[name=player]", "Bo")
    page.fill("details.correct input[name=points]", "11")
    page.fill("details.correct input[name=reason]", "forgot his flush")
    tap(page, button(page, "Record the correction"))
    assert scores(page)["Bo"] == 15
    pass_(page, "Anna")
    declare(page, "Bo", "three_of_a_kind")
    pass_(page, "Cia")
    all_pass(page, "Anna", "Bo", "Cia")
    chicago = page.locator(".chicago")
    assert chicago.get_by_role("button", name="Anna calls Chicago").is_disabled()
    assert chicago.get_by_role("button", name="Cia calls Chicago").is_disabled()
    assert "Anna has 10 points; Chicago needs 15" in chicago.inner_text()
    screens(page, "chicago-refused-for-anna-and-cia")
    tap(page, button(page, "Bo calls Chicago"))
    screens(page, "chicago-called")
    for _ in range(5):
        trick(page, "Bo")
    assert scores(page)["Bo"] == 33
    all_pass(page, "Anna", "Bo", "Cia")

    # Round 3 (Anna deals): an undo, two royal flushes, a Chicago lost at the first trick.
    declare(page, "Bo", "pair")
    assert "Bo declared a pair" in page.locator("button.undo").inner_text()
    tap(page, page.locator("button.undo"))
    screens(page, "after-undo")
    declare(page, "Bo", "royal_flush")
    all_pass(page, "Cia", "Anna")
    all_pass(page, "Bo", "Cia")
    declare(page, "Anna", "royal_flush")
    tap(page, button(page, "Bo calls Chicago"))
    trick(page, "Cia")
    assert "Chicago lost" in page.locator("#scoreboard .last").inner_text()
    all_pass(page, "Bo", "Cia")
    declare(page, "Anna", "straight_flush")
    assert scores(page) == {"Anna": 70, "Bo": 70, "Cia": 0}

    # A tie at 70: a tie-break round between Anna and Bo; Cia sits out.
    assert "Tie-break round" in page.locator(".where").inner_text()
    assert "sits out" in page.locator(".seat.out").inner_text()
    screens(page, "tie-break")
    pass_(page, "Anna")
    declare(page, "Bo", "pair")
    all_pass(page, "Anna", "Bo")
    tap(page, button(page, "Anna took the last trick"))
    all_pass(page, "Anna", "Bo")
    assert "Anna wins with 75 points!" in page.locator("#turn").inner_text()
    screens(page, "winner", full_page=True)

    wait_until(live, "() => document.querySelector('#board').innerText.includes('Anna wins with')", timeout=3)
    screens(live, "live-view", full_page=True)
    live.close()


def test_a_refusal_appears_in_place(page, server, screens):
    start_match(page, server, "Anna", "Bo")
    url = page.url
    draw_for_deal(page, Bo="5")  # Anna's rank not tapped
    assert page.locator("p.refusal[role=alert]").inner_text() == "Tap the rank each player drew"
    assert page.url == url
    screens(page, "refusal")


def test_back_and_forward_show_a_whole_page_not_a_fragment(page, server):
    start_match(page, server, "Anna", "Bo")
    tap(page, button(page, "Anna deals"))
    page.goto(server + "/")
    page.go_back()
    wait_until(page, SETTLED)
    assert page.locator("header.top").count() == 1
    assert page.locator("#table").count() == 1
    page.go_forward()
    assert page.locator("header.top").count() == 1
