"""Issue 6: seven languages. Every message has a translation in every catalogue; the page follows
the browser, switches on request, and remembers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from webtools import soup

from scorekeeper.web.present.i18n import LANGUAGES, TRANSLATIONS

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {  # as README's pybabel extract line says
    "N_": None,
    "NC_": ((1, "c"), 2),
    "NP_": (1, 2),
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
TRANSLATED = sorted(set(LANGUAGES) - {"en"})


class InContext(NamedTuple):
    context: str
    message: str


def extracted() -> set:
    """Every message the code and the templates mark for translation (as ``babel.cfg`` says):
    the message, or ``InContext`` where it has a context."""
    found = set()
    methods = [("scorekeeper/**.py", "python"), ("templates/**.html", "jinja2")]
    options = {"templates/**.html": {"trimmed": "true"}}
    for _, _, message, _, context in extract_from_dir(
        str(ROOT), methods, keywords=KEYWORDS, options_map=options, strip_comment_tags=True
    ):
        found.add(InContext(context, message) if context else message)
    return found


@pytest.fixture(scope="module")
def messages() -> set:
    return extracted()


def catalogue(lang: str):
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f, locale=lang)


def test_the_extractor_finds_the_messages(messages):
    assert len(messages) > 300
    assert "Keep the screen on" in messages and "Two pair" in messages  # a template's and the core's
    assert "{player} must declare at least {best}, or pass" in messages


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation_in_every_catalogue(messages, lang):
    cat = catalogue(lang)
    missing = []
    for found in messages:
        context, message = (found.context, found.message) if isinstance(found, InContext) else (None, found)
        entry = cat.get(message, context=context)
        strings = entry.string if entry is not None else None
        forms = strings if isinstance(strings, tuple | list) else (strings,)
        if entry is None or not all(forms) or entry.fuzzy:
            missing.append(message)
            continue
        source = message[-1] if isinstance(message, tuple) else message
        for form in forms:  # the same placeholders, or the page would fail or lose a value
            assert set(PLACEHOLDER.findall(form)) == set(PLACEHOLDER.findall(source)), (lang, message, form)
    assert missing == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalogues_match_their_sources(lang):
    """The .mo files the app reads are compiled from the .po files as they are now."""

    def plain(value):
        return tuple(value) if isinstance(value, list | tuple) else value

    po = {plain(m.id): plain(m.string) for m in catalogue(lang) if m.id}
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
        mo = {plain(m.id): plain(m.string) for m in read_mo(f) if m.id}
    assert mo == po


@pytest.mark.both_profiles
def test_the_language_follows_the_browser(client):
    page = soup(client.get("/new", headers={"Accept-Language": "sv-SE,sv;q=0.9,en;q=0.5"}))
    assert page.html["lang"] == "sv"
    assert page.select_one("h1").text == "Ny match"
    page = soup(client.get("/new", headers={"Accept-Language": "ja"}))
    assert page.select_one("h1").text == "新しい試合"
    page = soup(client.get("/new", headers={"Accept-Language": "de-DE"}))  # not offered: English
    assert page.html["lang"] == "en" and page.select_one("h1").text == "New match"


@pytest.mark.both_profiles
def test_the_language_switch_is_remembered_and_returns_to_the_page(client):
    response = client.post("/language", data={"lang": "el", "next": "/players"})
    assert response.status_code == 303 and response.headers["Location"] == "/players"
    assert "lang=el" in response.headers["Set-Cookie"] and "HttpOnly" in response.headers["Set-Cookie"]
    page = soup(client.get("/players", headers={"Accept-Language": "sv"}))  # the choice wins
    assert page.html["lang"] == "el" and page.select_one("h1").text == "Παίκτες"


@pytest.mark.both_profiles
def test_the_switch_goes_back_by_referer_and_never_leaves_the_site(client):
    back = client.post(
        "/language", data={"lang": "ca", "next": "/"}, headers={"Referer": "http://localhost/watch?t=abc"}
    )
    assert back.headers["Location"] == "/watch?t=abc"
    for target in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)"):
        response = client.post("/language", data={"lang": "ca", "next": target})
        assert response.headers["Location"] == "/", target
    unknown = client.post("/language", data={"lang": "xx", "next": "/"})
    assert "Set-Cookie" not in unknown.headers


def test_engine_refusals_and_hand_names_are_translated(keeper, client):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair")
    client.set_cookie("lang", "sv")
    response = keeper.declare("Cia", "pair")
    refusal = soup(response).select_one("p.refusal")
    assert refusal.text.startswith("Cia måste säga minst två par, eller passa")  # a hand inside a sentence
    buttons = [
        b.text.split()[0]
        for b in soup(client.get(f"/m/{keeper.match_id}")).select(".hand-buttons button, .quick-hand")
    ]
    assert "Triss" in buttons and "Kåk" in buttons


def test_dates_are_said_the_local_way(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    client.set_cookie("lang", "ja")
    meta = soup(client.get(f"/m/{keeper.match_id}/history")).select_one("p.meta").text
    assert re.search(r"\d{4}/\d{2}/\d{2}", meta), meta  # Japanese medium date: 2026/11/30
    client.set_cookie("lang", "en")
    meta = soup(client.get(f"/m/{keeper.match_id}/history")).select_one("p.meta").text
    assert re.search(r"[A-Z][a-z]{2} \d{1,2}, \d{4}", meta), meta  # English: Nov 30, 2026


def test_the_feed_the_last_change_and_tie_reasons_are_translated(keeper, client):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair", cards="Ks Kh 4c 4d 9s")
    keeper.declare("Cia", "two_pair", cards="Kd Kc 4h 4s 2s")
    keeper.post(type="pass", player="Anna")
    client.set_cookie("lang", "sv")
    page = soup(client.get(f"/m/{keeper.match_id}"))
    assert "Bo sa två par (K♠ K♥ 4♣ 4♦ 9♠)" in page.select_one("#feed").text
    last = page.select_one("#scoreboard").text
    assert "Bo +2, två par" in last
    assert "sidokortet avgör, 9 mot 2" in last
    client.set_cookie("lang", "ja")
    page = soup(client.get(f"/m/{keeper.match_id}"))
    assert "Annaはパス" in page.select_one("#feed").text


def test_what_is_rendered_once_and_kept_is_kept_per_language(keeper, client, app):
    """The card picker and the live board are cached; a Swedish phone must not get an English copy."""
    from scorekeeper.web import roles

    keeper.new("Anna", "Bo", dealer="Anna").detailed()
    with app.test_request_context():
        board = f"/watch/board?t={roles.watch_token(keeper.match_id)}"
    english_table = soup(client.get(f"/m/{keeper.match_id}"))
    assert english_table.select_one("#turn .picker summary").text == "Add the five cards (optional)"
    assert "Now:" in client.get(board).text
    client.set_cookie("lang", "sv")
    swedish = soup(client.get(f"/m/{keeper.match_id}"))
    assert swedish.select_one("#turn .picker summary").text == "Lägg till de fem korten (frivilligt)"
    assert "spader knekt" in swedish.select_one("#turn .picker").text
    assert "Nu:" in client.get(board).text


def test_a_card_is_named_for_screen_readers_as_the_hand_descriptions_name_its_rank(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna").detailed()
    names = {label["for"]: label.select_one(".sr").text for label in keeper.page().select("#turn label.card")}
    assert (names["declare-Qh"], names["declare-Ts"], names["declare-2c"]) == (
        "queen of hearts",
        "10 of spades",
        "2 of clubs",
    )
    client.set_cookie("lang", "sv")
    swedish = soup(client.get(f"/m/{keeper.match_id}"))
    assert swedish.select_one("label[for=declare-Ah] .sr").text == "hjärter ess"


def test_a_mistyped_card_is_refused_in_the_readers_language(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    client.set_cookie("lang", "el")
    response = keeper.declare("Bo", "pair", cards="1x Kh 4c 4d 9s")
    assert response.status_code == 422
    assert soup(response).select_one("p.refusal").text == "Το «1x» δεν είναι φύλλο"
    checker = soup(client.get("/hands?hand1=Ks+Kh+4c+4d+9s&hand2=Ks+Kc+4h+4s+2s"))
    assert "Hand 2" not in checker.text  # hand labels are translated too
    assert (
        checker.select_one(".refusal li").text
        == "Το K♠ είναι στο Χέρι 1 και στο Χέρι 2: υπάρχει μόνο μία τράπουλα"
    )


def test_names_are_listed_the_way_the_readers_language_lists_them(keeper, client):
    """Issue 10: no English "and" between names on a Swedish or Japanese screen."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair")
    keeper.declare("Cia", "two_pair")
    keeper.post(type="pass", player="Anna")
    client.set_cookie("lang", "sv")
    heading = soup(client.get(f"/m/{keeper.match_id}")).select_one("#turn h2").text
    assert heading.startswith("Lika: Bo och Cia")
    refusal = soup(keeper.post(type="exchange", player="Bo", count="2")).select_one("p.refusal").text
    assert refusal.startswith("Avgör först det lika läget mellan Bo och Cia")
    client.set_cookie("lang", "ja")
    assert "Bo、Cia" in soup(client.get(f"/m/{keeper.match_id}")).select_one("#turn h2").text
    client.set_cookie("lang", "en")
    page = soup(client.get(f"/rules?m={keeper.match_id}"))
    assert page.select_one("#house").text == "This match: Anna, Bo, and Cia"


def test_lists_of_scores_and_declarations_are_joined_the_languages_way(keeper, client):
    """Issue 27: the round's "So far" and the Chicago scores through the locale's list pattern ("、")."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post(type="pass", player="Bo")
    keeper.declare("Cia", "pair")
    client.set_cookie("lang", "ja")
    so_far = soup(client.get(f"/m/{keeper.match_id}")).select_one(".so-far").text
    assert so_far.startswith("これまで：") and "、" in so_far and " · " not in so_far and "： " not in so_far


def test_house_rules_follow_one_another_as_the_language_writes_sentences(keeper, client):
    """A space between two sentences in English, none in Japanese (。 ends one, the next starts)."""
    keeper.new("Anna", "Bo", dealer="Anna", target="30", win="first_to_reach")
    footers = {}
    for lang in ("en", "ja"):
        client.set_cookie("lang", lang)
        page = soup(client.get(f"/m/{keeper.match_id}"))
        footers[lang] = " ".join(page.select_one("footer.links p").text.split())
    assert "house rules. The target is 30 points. " in footers["en"]
    rules = footers["ja"].split("この試合のルール")[0]  # the sentences, before the link to the rules
    assert "30点です。" in rules and "。 " not in rules.strip()


def test_tab_titles_and_the_manifest_are_in_the_readers_language(client):
    """Issue 27: "– Chicago" at the end of a tab's title, and the installable app's name, translated."""
    page = soup(client.get("/players", headers={"Accept-Language": "ja"}))
    assert page.title.text == "プレイヤー – シカゴ"
    link = page.select_one("link[rel=manifest]")["href"]
    assert link == "/manifest.ja.webmanifest"
    response = client.get(link)  # a browser fetches it without cookies: the URL names the language
    assert response.headers["Content-Type"].startswith("application/manifest+json")
    assert "public" in response.headers["Cache-Control"]
    manifest = response.get_json()
    assert (manifest["name"], manifest["short_name"], manifest["lang"]) == (
        "シカゴ・スコアキーパー",
        "シカゴ",
        "ja",
    )
    assert (
        client.get("/manifest.webmanifest", headers={"Accept-Language": "el"}).get_json()["short_name"]
        == "Σικάγο"
    )
    assert client.get("/manifest.xx.webmanifest").status_code == 404
