"""QR codes of links, drawn on the server by segno: inline SVG for a page, half blocks for a terminal.

No script draws them and no CDN serves them. The hand-over link is a secret, so its code
is drawn into the page itself rather than served from an image URL that a log could keep.
"""

from __future__ import annotations

import segno
from markupsafe import Markup

QUIET_ZONE = 4  # modules of light margin on every side: what the QR standard asks for


def svg(link: str, title: str) -> Markup:
    """The link's QR code as an inline ``<svg>``: dark modules on its own white square.

    It has a viewBox but no size and no ``style`` attribute (the CSP allows no inline
    styles): app.css sizes it. The white square, quiet zone included, is part of the
    drawing, so the code stays dark on light in dark mode too.
    """
    code = segno.make(link, micro=False)
    drawn = code.svg_inline(
        scale=1,
        border=QUIET_ZONE,
        dark="#000",
        light="#fff",
        omitsize=True,
        svgclass="qr",
        lineclass=None,
        title=title,
    )
    return Markup(drawn.replace("<svg ", '<svg role="img" ', 1))


# Black on white whatever the terminal's own colours (segno's writers use the terminal's, which
# turns the code negative on a light terminal).
_BLACK_ON_WHITE, _RESET = "\033[30;47m", "\033[0m"
_HALF_BLOCKS = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584", (True, True): "\u2588"}


def terminal(link: str) -> str:
    """The link's QR code for a terminal: two rows of modules to a line, quiet zone included."""
    matrix = segno.make(link, micro=False).matrix_iter(border=QUIET_ZONE)
    rows = [tuple(bool(bit) for bit in row) for row in matrix]
    rows.append((False,) * len(rows[0]))  # an odd number of rows: the last line's lower half is light
    lines = []
    for top, bottom in zip(rows[0::2], rows[1::2], strict=False):
        lines.append(
            _BLACK_ON_WHITE + "".join(_HALF_BLOCKS[pair] for pair in zip(top, bottom, strict=True)) + _RESET
        )
    return "\n".join(lines)
