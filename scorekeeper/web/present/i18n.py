"""The players' languages (Flask-Babel): chosen from the browser, switchable in the page, remembered.

English and Swedish, and the five languages of the original rule text in
``shared/seeds/``: Greek, Catalan, Uzbek, Hindi and Japanese. The choice is
kept in a cookie for a year. The core speaks English and marks its messages
with ``N_``; they are translated here, when they are shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from babel.lists import format_list
from babel.support import NullTranslations
from flask import Flask, g, request
from flask_babel import Babel, format_date, format_datetime, format_decimal, format_percent, get_translations
from flask_babel import get_locale as babel_locale
from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup

from scorekeeper.cards import Card, Suit
from scorekeeper.hands import Category
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.scores import Reason
from scorekeeper.words import MINUS, N_, Listed, ListStyle, Said, said, signed, whole

LANGUAGES = {
    "en": "English",
    "sv": "Svenska",
    "el": "Ελληνικά",
    "ca": "Català",
    "uz": "Oʻzbekcha",
    "hi": "हिन्दी",
    "ja": "日本語",
}
COOKIE = "lang"
TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"


# Flask-Babel finds the request's catalogue and locale again on every call, through half a
# dozen context lookups: about 120 calls a tap made that a tenth of its CPU (issue 14). The
# request's catalogue and locale are found once here and kept on ``g``; the functions below
# are Flask-Babel's, with the same arguments and results.
def catalogue() -> NullTranslations:
    """The page's translations, found once per request."""
    found: NullTranslations | None = g.get("catalogue")
    if found is None:
        found = g.catalogue = get_translations()
    return found


def get_locale() -> Any:
    """The page's locale, found once per request (Flask-Babel's ``get_locale``)."""
    found = g.get("page_locale")
    if found is None:
        found = g.page_locale = babel_locale()
    return found


def gettext(string: str, **variables: Any) -> str:
    found = catalogue().ugettext(string)
    return found % variables if variables else found


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    variables.setdefault("num", num)
    return catalogue().ungettext(singular, plural, num) % variables


def pgettext(context: str, string: str, **variables: Any) -> str:
    found = catalogue().upgettext(context, string)
    return found % variables if variables else found


def npgettext(context: str, singular: str, plural: str, num: int, **variables: Any) -> str:
    variables.setdefault("num", num)
    return catalogue().unpgettext(context, singular, plural, num) % variables


_ = gettext


def select_locale() -> str:
    named = (request.view_args or {}).get("lang")  # a URL that names its language (the manifest's)
    if named in LANGUAGES:
        return str(named)
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(list(LANGUAGES)) or "en"


SUITS = {
    Suit.SPADES: N_("spades"),
    Suit.HEARTS: N_("hearts"),
    Suit.DIAMONDS: N_("diamonds"),
    Suit.CLUBS: N_("clubs"),
}


def card_name(card: Card) -> str:
    """A card in words, for screen readers: ``queen of hearts``, ``10 of spades``."""
    # Translators: a card for screen readers. If the word joining rank and suit would have to
    # agree with the rank (gender, case), use a form that needs none, such as "hearts: queen".
    return str(_("%(rank)s of %(suit)s", rank=say(card.rank.noun_words), suit=_(SUITS[card.suit])))


def point_source(source: str) -> str:
    """Where points came from: a hand's name, the last trick, Chicago or corrections."""
    for reason in Reason:
        if reason == source:
            return str(_(reason.label))
    return hand_name(Category(source))


def moment(iso: str) -> str:
    """A stored UTC time, said the local way in the page's language."""
    return str(format_datetime(datetime.fromisoformat(iso), "medium"))


def day(iso: str) -> str:
    return str(format_date(datetime.fromisoformat(iso), "medium"))


def decimal(number: float, pattern: str | None = None) -> str:
    """A number in the page's locale (Babel's ``format_decimal``), negative with the minus sign."""
    return str(format_decimal(number, pattern)).replace("-", MINUS)


def percent(share: float) -> str:
    """A share as a whole percentage in the page's locale: ``50%``, ``50 %`` (Babel, CLDR)."""
    return str(format_percent(share))


@pass_eval_context
def _template_gettext(eval_context: EvalContext, string: str, **variables: Any) -> str:
    """A template's ``_()``: what jinja2.ext.i18n's newstyle ``_`` does, in one call where it makes
    three through the template's context (its alias looks up ``gettext`` and calls it, which calls
    the callable installed). A tap's page says some 30 sentences: 7.5 µs each, now 3 (issue 14)."""
    found: str = catalogue().ugettext(string)
    if eval_context.autoescape:
        found = Markup(found)
    return found % variables  # always a format string, as newstyle gettext has it ("%%" is "%")


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    Babel(app, locale_selector=select_locale)
    # In place of Flask-Babel's callables, which look the catalogue up on every call:
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]  # added by jinja2.ext.i18n
        gettext=lambda s: catalogue().ugettext(s),
        ngettext=lambda s, p, n: catalogue().ungettext(s, p, n),
        pgettext=lambda c, s: catalogue().upgettext(c, s),
        npgettext=lambda c, s, p, n: catalogue().unpgettext(c, s, p, n),
        newstyle=True,
    )
    app.jinja_env.globals.update(
        _=_template_gettext,
        languages=LANGUAGES,
        language=lambda: str(get_locale()),
        moment=moment,
        day=day,
        decimal=decimal,
        percent=percent,
    )
    app.jinja_env.filters.update(
        hand=hand_name,
        card_name=card_name,
        point_source=point_source,
        say=say,
        listed=names,
        sentences=sentences,
        signed=signed,
        whole=whole,
    )
    app.jinja_env.policies["ext.i18n.trimmed"] = True  # {% trans %} blocks read as one line


def hand_name(category: Category) -> str:
    """A hand's name in the page's language: ``Two pair``, ``Tvåpar``."""
    return str(_(category.label))


def refusal_text(error: RuleBroken) -> str:
    """The engine's refusal in the page's language."""
    return say(error.words)


def say(value: Any) -> str:
    """Say the core's words (``Said``) in the page's language; names and numbers as they are."""
    if isinstance(value, Said):
        if value.plural:  # the number in the part ``count`` chooses the form
            template = ngettext(value.template, value.plural, dict(value.parts)[value.count])
        elif value.context:
            template = pgettext(value.context, value.template)
        else:
            template = _(value.template)
        return str(template).format(**{name: say(part) for name, part in value.parts})
    if isinstance(value, Listed):
        return names((say(item) for item in value.items), value.style)
    if isinstance(value, Category):
        return say(value.named)  # the hand's name inside a sentence, as each language writes it
    return str(value)


def names(items: Iterable[str], style: ListStyle = "standard") -> str:
    """Names as one list in the page's language: ``Anna, Bo, and Cia``, ``Anna, Bo och Cia`` (style
    "or": ``Anna, Bo, or Cia``)."""
    return format_list(list(items), style=style, locale=get_locale())


# Languages that write one sentence right after another, with no space between (日本語です。次の文。).
NO_SPACE_BETWEEN_SENTENCES = frozenset({"ja", "zh"})


def sentences(items: Iterable[str]) -> str:
    """Whole sentences one after another, as the page's language writes them: a space between
    them, none in Japanese."""
    return ("" if get_locale().language in NO_SPACE_BETWEEN_SENTENCES else " ").join(items)


def error_text(error: Exception) -> str:
    """A refused form, card or name in the page's language (English where it carries no words)."""
    words = getattr(error, "words", None)
    if words is None:
        return str(error)
    index = getattr(error, "index", None)  # a match file's event at fault
    # An event counted from 1, as the history counts them (the file format's index is 0-based).
    return say(words if index is None else said(N_("event {index}: {error}"), index=index + 1, error=words))


def house_rules(rules: Rules, *, target: bool = True) -> tuple[str, ...]:
    """How a match's rules differ from the base rules, a sentence each, in the page's language.

    ``target=False`` leaves the target out, for a page that already shows it.
    """
    if not target:
        rules = replace(rules, target=Rules().target)
    return tuple(say(change) for change in rules.changes())
