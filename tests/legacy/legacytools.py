"""What make_legacy_db.py and test_legacy_database.py share: the files, the app's test settings,
how a phone asks for a page, and the page's text as the snapshots keep it.

The snapshots compare what a person sees, not the markup: CSRF tokens and idempotency keys are
random in every page, so a page is reduced to its visible text (BeautifulSoup, without
<script>, <style> and <template>, ``get_text(" ")``, whitespace collapsed).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup

HERE = Path(__file__).resolve().parent
DATABASE = HERE / "legacy.sqlite"
META = HERE / "legacy.json"
EXPECTED = HERE / "expected"
EXPORTS = EXPECTED / "exports"
# One file of page snapshots per kind of page, so that a diff of the snapshots stays readable.
PAGE_KINDS = (
    "index",
    "players",
    "person",
    "history",
    "at",
    "table-keeper",
    "table-stranger",
    "watch",
    "handover",
    "rules",
    "sv",
)


def app_config(database: Path | str, secret_key: str) -> dict[str, Any]:
    """The settings tests/web/conftest.py gives the app, over ``database``, with the fixture's key."""
    return {
        "TESTING": True,
        "PROFILE": "lan",
        "DATABASE": str(database),
        "SECRET_KEY": secret_key,
        "WTF_CSRF_ENABLED": False,
        "RATELIMIT_ENABLED": False,
    }


def watch_token(secret_key: str, match_id: str) -> str:
    """The live-view secret of a match, worked out as scorekeeper.web.roles.watch_token does."""
    return hmac.new(secret_key.encode(), b"watch:" + match_id.encode(), hashlib.sha256).hexdigest()


def page_lines(html: str) -> list[str]:
    """The visible text of a page, one line per line of text, whitespace collapsed within each.

    Joined with spaces, the lines are ``page_text``: they only keep a diff readable.

    >>> html = "<p>Bo <b>3</b></p><script>poll()</script><p> two\\n  words </p>"
    >>> page_lines(html), page_text(html)
    (['Bo', '3', 'two', 'words'], 'Bo 3 two words')
    """
    soup = _soup(html)
    return [" ".join(line.split()) for line in soup.get_text("\n").splitlines() if line.strip()]


def page_text(html: str) -> str:
    """The visible text of a page, as the snapshots compare it."""
    return " ".join(_soup(html).get_text(" ").split())


def _soup(html: str) -> BeautifulSoup:
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "template"]):
        tag.decompose()
    return soup


def get(app: Any, request: dict[str, Any], secrets: dict[str, str]) -> Any:
    """GET ``request["path"]`` from a phone of its own: a stranger's, or the scorekeeper's.

    The scorekeeper's phone first claims the role with the match's hand-over link
    (``secrets`` maps a match label to its scorekeeper secret), as a second phone at the
    table would. Every request names its language with Accept-Language.
    """
    client = app.test_client()
    headers = {"Accept-Language": request.get("lang", "en")}
    if request.get("as") == "keeper":
        # Showdowns declaration by declaration, as that version had them (one tap came with issue 11).
        client.set_cookie("entry", "detail")
        claimed = client.get(f"/claim?t={secrets[request['match']]}", headers=headers)
        assert claimed.status_code == 303, f"claiming {request['match']}: {claimed.status_code}"
    return client.get(request["path"], headers=headers)


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
