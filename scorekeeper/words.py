"""Words for people, kept apart from the language they are said in.

``N_("text")`` marks a message for translation and returns it unchanged; the
message extractor (``babel.cfg``) collects every ``N_`` string. ``Said`` is a
sentence with its parts still apart: ``str()`` says it in English (the CLI,
the match file, the tests), and the web layer says the same template and
parts in the reader's language. ``Listed`` names are joined by the language's
own list pattern. The core never imports a translation library.

>>> str(said(N_("{player} declared {hand}"), player="Bo", hand=said(N_("two pair"))))
'Bo declared two pair'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Literal, Self


def N_(text: str) -> str:  # noqa: N802 - the gettext convention for "translate later"
    """Mark ``text`` for translation and return it unchanged."""
    return text


def NC_(context: str, text: str) -> Said:  # noqa: N802 - pgettext's "translate later"
    """Mark ``text`` for translation in ``context`` (a word alone is ambiguous): a ``Said`` without parts.

    >>> str(NC_("rank, several cards", "kings"))
    'kings'
    """
    return Said(text, (), context)


@dataclass(frozen=True, slots=True)
class Said:
    """A message template (marked ``N_``) and its parts: names, numbers, hands or other ``Said``."""

    template: str
    parts: tuple[tuple[str, Any], ...] = ()
    context: str = ""  # pgettext's context, for a word that is ambiguous alone
    plural: str = ""  # ngettext's plural template, chosen by the number in the part ``count``
    count: str = ""

    def __str__(self) -> str:
        number = dict(self.parts).get(self.count) if self.plural else None
        template = self.plural if self.plural and number != 1 else self.template
        return template.format(**{name: english(value) for name, value in self.parts})


def NP_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802 - ngettext's "translate later"
    """Mark a message with a number for translation: its singular and plural (``said_n`` says it)."""
    return singular, plural


def said_n(forms: tuple[str, str], count: str, **parts: Any) -> Said:
    """A message whose words follow the number in the part named ``count`` (ngettext).

    >>> points = NP_("{n} point", "{n} points")
    >>> str(said_n(points, "n", n=1)), str(said_n(points, "n", n=3))
    ('1 point', '3 points')
    """
    return Said(forms[0], tuple(parts.items()), plural=forms[1], count=count)


def quoted(text: Any) -> Said:
    """``text`` as someone wrote it (a card typed, a name, a match file's word), in quotation marks
    the reader's language chooses.

    >>> str(said(N_("{card} is not a card"), card=quoted("1x")))
    '“1x” is not a card'
    """
    # Translators: something a person typed or a match file holds, quoted as written: only the
    # quotation marks are yours (”…”, «…», 「…」).
    return said(N_("“{text}”"), text=text)


def said(template: str | Said, **parts: Any) -> Said:
    """``template`` (marked ``N_``, or ``NC_`` with its context) with its parts."""
    if isinstance(template, Said):
        return Said(template.template, tuple(parts.items()), template.context)
    return Said(template, tuple(parts.items()))


ListStyle = Literal["standard", "or"]  # Babel's format_list styles a list is said in: "and", "or"


@dataclass(frozen=True, slots=True)
class Listed:
    """Names (or other short parts) said as one list, in the language's own list pattern.

    ``str()`` follows English's pattern as Babel's ``format_list`` says it for
    ``en`` (CLDR), so that the CLI and an English page agree; the web layer
    formats ``items`` with the reader's locale.

    >>> str(listed(["Anna"])), str(listed(["Anna", "Bo"])), str(listed(["Anna", "Bo", "Cia"]))
    ('Anna', 'Anna and Bo', 'Anna, Bo, and Cia')
    >>> str(listed(["a pair", "a flush", "a straight"], style="or"))
    'a pair, a flush, or a straight'
    """

    items: tuple[Any, ...]
    style: ListStyle = "standard"  # "or": one of them (format_list's styles)

    def __str__(self) -> str:
        words = [english(item) for item in self.items]
        last = " or " if self.style == "or" else " and "
        if len(words) < 3:
            return last.join(words)
        return ", ".join(words[:-1]) + "," + last + words[-1]


def listed(items: Iterable[Any], style: ListStyle = "standard") -> Listed:
    return Listed(tuple(items), style)


def sentences(items: list[Said]) -> Said | str:
    """Several sentences in one: ``Anna showed …; Bo showed …``."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return said(N_("{first}; {rest}"), first=items[0], rest=sentences(items[1:]))


class Worded(StrEnum):
    """A StrEnum whose members carry more than their value: ``NAME = "value", words, …``.

    The value is the stable spelling (a code, a file's or a column's name);
    each subclass's ``__init__`` names what else its members carry.
    """

    def __new__(cls, value: str, *carried: Any) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        return member


MINUS = "\u2212"  # the minus sign: "−8" on a page, not the hyphen of "-8" (a file keeps its own "-8")


def signed(number: int) -> str:
    """A change of points as a person reads it, always with its sign: ``+5``, ``−8``, ``+0``.

    >>> signed(5), signed(-8), signed(0)
    ('+5', '−8', '+0')
    """
    return f"+{number}" if number >= 0 else f"{MINUS}{-number}"


def whole(number: int) -> str:
    """A whole number as a person reads it, a negative one with the minus sign: ``15``, ``−15``.

    >>> whole(15), whole(-15)
    ('15', '−15')
    """
    return str(number).replace("-", MINUS)


def english(value: Any) -> str:
    """A part in English: a hand's category by its name in a sentence (``two pair``)."""
    if isinstance(value, Said | Listed):
        return str(value)
    if isinstance(value, Enum) and hasattr(value, "named"):
        return english(value.named)  # a hand's name inside a sentence: "declared a pair"
    if isinstance(value, Enum) and hasattr(value, "label"):
        return str(value.label).lower()
    return str(value)
