"""The 52-card picker, rendered once per (form, cards already shown, open) and reused.

Its markup lives in the ``picker`` macro of ``matches/_macros.html``; rendering
52 tiles through Jinja on every tap cost more than the rest of the page.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import get_template_attribute
from markupsafe import Markup

from scorekeeper.cards import DECK, Suit
from scorekeeper.web.cache import cache, text_size
from scorekeeper.web.present.i18n import get_locale

DECK_ROWS = [[card for card in DECK if card.suit is suit] for suit in Suit]


def picker(prefix: str, used: Iterable[str] = (), open: bool = False, **names: str) -> Markup:
    """The picker's HTML, from the app's cache when these arguments (and language) were rendered before.

    ``names`` may rename its fields (``field``, ``pick``) and its ``summary``, or fill in ``value``.
    """
    key = (prefix, frozenset(used), open, tuple(sorted(names.items())), str(get_locale()))

    def rendered() -> Markup:
        macro = get_template_attribute("matches/_macros.html", "picker")
        return Markup(macro(prefix, DECK_ROWS, key[1], open, **names))

    return cache().kept("picker", key, rendered, text_size)
