"""The 52-card picker, rendered once per (form, cards already shown, open) and reused.

Its markup lives in the ``picker`` macro of ``matches/_macros.html``; rendering
52 tiles through Jinja on every tap cost more than the rest of the page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask import current_app, get_template_attribute
from flask_babel import get_locale
from markupsafe import Markup

from scorekeeper.cards import DECK, Suit

DECK_ROWS = [[card for card in DECK if card.suit is suit] for suit in Suit]


def picker(prefix: str, used: Iterable[str] = (), open: bool = False, **names: str) -> Markup:
    """The picker's HTML, from the app's cache when these arguments (and language) were rendered before.

    ``names`` may rename its fields (``field``, ``pick``) and its ``summary``, or fill in ``value``.
    """
    cache: dict[tuple[Any, ...], Markup] = current_app.extensions.setdefault("pickers", {})
    key = (prefix, frozenset(used), open, tuple(sorted(names.items())), str(get_locale()))
    if key not in cache:
        macro = get_template_attribute("matches/_macros.html", "picker")
        cache[key] = Markup(macro(prefix, DECK_ROWS, key[1], open, **names))
        if len(cache) > 512:
            cache.pop(next(iter(cache)))
    return cache[key]
