"""Issue 11, item 5: what a new user hit, checked on a 360 px phone in a real browser.

Screens are kept under test-output/screens/<test>/ to be looked at.
"""

import pytest

pytestmark = pytest.mark.browser

SMALL_PHONE = {"width": 360, "height": 640}


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
    yield context
    context.close()


def test_the_first_dealer_choices_follow_the_names_as_they_are_typed(phone, server, screens):
    page = phone.new_page()
    page.goto(server + "/new")
    choices = page.locator(".first-dealer label")
    assert choices.nth(1).inner_text().strip() == "Seat 1 deals"
    page.locator("input[name=name]").nth(0).fill("Anna")
    page.locator("input[name=name]").nth(1).fill("Bo")
    assert [choices.nth(i).inner_text().strip() for i in range(1, 5)] == [
        "Anna deals",
        "Bo deals",
        "Seat 3 deals",
        "Seat 4 deals",
    ]
    page.locator("input[name=name]").nth(1).fill("")
    assert choices.nth(2).inner_text().strip() == "Seat 2 deals"
    screens(page, "new-match-names-typed", full_page=True)
