"""The table's shared action form, a template global rather than an import in every partial.

Jinja's ``{% from ... import %}`` compares the importing template's globals with the macro
file's at each import: five imports a tap cost some 0.1 ms (issue 14). The global looks the
macro up in the macro file's module, which Jinja keeps.
"""

from __future__ import annotations

from typing import Any

from flask import get_template_attribute
from markupsafe import Markup


def action_form(*args: Any, **kwargs: Any) -> Markup:
    """``matches/_macros.html``'s ``action_form`` (its caller and arguments passed on)."""
    return Markup(get_template_attribute("matches/_macros.html", "action_form")(*args, **kwargs))
