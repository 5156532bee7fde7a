"""QR codes of links, drawn on the server by segno: inline SVG for a page.

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
