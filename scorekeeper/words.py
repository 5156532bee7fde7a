"""Words for people, kept apart from the language they are said in.

``N_("text")`` marks a message for translation and returns it unchanged; the
message extractor (``babel.cfg``) collects every ``N_`` string. ``Said`` is a
sentence with its parts still apart: ``str()`` says it in English (the CLI,
the match file, the tests), and the web layer says the same template and
parts in the reader's language. The core never imports a translation library.

>>> str(said(N_("{player} declared {hand}"), player="Bo", hand=said(N_("two pair"))))
'Bo declared two pair'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


def N_(text: str) -> str:  # noqa: N802 - the gettext convention for "translate later"
    """Mark ``text`` for translation and return it unchanged."""
    return text


@dataclass(frozen=True, slots=True)
class Said:
    """A message template (marked ``N_``) and its parts: names, numbers, hands or other ``Said``."""

    template: str
    parts: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        return self.template.format(**{name: english(value) for name, value in self.parts})


def said(template: str, **parts: Any) -> Said:
    return Said(template, tuple(parts.items()))


def joined(names: tuple[str, ...] | list[str]) -> Said | str:
    """Names joined with "and": ``Anna and Bo``, ``Anna and Bo and Cia``."""
    if len(names) == 1:
        return names[0]
    return said(N_("{first} and {rest}"), first=names[0], rest=joined(names[1:]))


def listed(items: list[Said]) -> Said | str:
    """Several sentences in one: ``Anna showed …; Bo showed …``."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return said(N_("{first}; {rest}"), first=items[0], rest=listed(items[1:]))


def english(value: Any) -> str:
    """A part in English: a hand's category by its name in a sentence (``two pair``)."""
    if isinstance(value, Said):
        return str(value)
    if isinstance(value, Enum) and hasattr(value, "label"):
        return str(value.label).lower()
    return str(value)
