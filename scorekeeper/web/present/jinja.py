"""What every template may call, as globals: the action form, the card picker, a fresh key, htmx's file.

The table's shared action form is a global rather than an import in every partial:
Jinja's ``{% from ... import %}`` compares the importing template's globals with the macro
file's at each import: five imports a tap cost some 0.1 ms (issue 14). The global looks the
macro up in the macro file's module, which Jinja keeps.

The 52-card picker is rendered once per (form, cards already shown, open) and reused: its
markup lives in the ``picker`` macro of ``matches/_macros.html``; rendering 52 tiles through
Jinja on every tap cost more than the rest of the page.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any

from flask import Flask, get_template_attribute
from markupsafe import Markup

from scorekeeper.cards import DECK, Suit
from scorekeeper.web.cache import cache, text_size
from scorekeeper.web.present.htmx import HTMX_SCRIPT
from scorekeeper.web.present.i18n import get_locale

DECK_ROWS = tuple(tuple(card for card in DECK if card.suit is suit) for suit in Suit)


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(
        htmx_script=HTMX_SCRIPT, picker=picker, action_form=action_form, new_key=new_key
    )


def action_form(*args: Any, **kwargs: Any) -> Markup:
    """``matches/_macros.html``'s ``action_form`` (its caller and arguments passed on)."""
    return Markup(get_template_attribute("matches/_macros.html", "action_form")(*args, **kwargs))


def picker(prefix: str, used: Iterable[str] = (), open: bool = False, **names: str) -> Markup:
    """The picker's HTML, from the app's cache when these arguments (and language) were rendered before.

    ``names`` may rename its fields (``field``, ``pick``) and its ``summary``, or fill in ``value``.
    """
    key = (prefix, frozenset(used), open, tuple(sorted(names.items())), str(get_locale()))

    def rendered() -> Markup:
        macro = get_template_attribute("matches/_macros.html", "picker")
        return Markup(macro(prefix, DECK_ROWS, key[1], open, **names))

    return cache().kept("picker", key, rendered, text_size)


def new_key() -> str:
    """A fresh idempotency key for one rendered action form (TRUST.md W1)."""
    return secrets.token_urlsafe(16)
