"""How the other phones at the table reach this server: ``serve``'s default address, the share page's links.

``serve`` listens on every interface by default (the ``lan`` profile), so that the phones at the
table can open what the share page's QR code says; behind a proxy it listens on this machine only.
A share page opened on the server's own machine (``127.0.0.1``, ``localhost``) would give links
no other phone can open: when the server listens on every interface the links name this
machine's address on the network instead, and otherwise the page says what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app, request, url_for

from scorekeeper.web import server

DEFAULT_PORT = 5000


def default_host(app: Flask) -> str:
    """Every interface, so that the phones at the table can open the app; this machine only behind a proxy.

    A phone that could reach the app past its proxy could forge the ``X-Forwarded-*`` the app
    trusts from it (TRUST.md S13), so with ``PROXIES`` (1 under ``tls``) only the proxy may.
    """
    return "127.0.0.1" if app.config["PROXIES"] else "0.0.0.0"


@dataclass(frozen=True)
class Reach:
    """Where the share page's links point, and what the page says about it.

    ``kind``: None (the page's own address, which the other phones can open too), ``"lan"``
    (the links name ``address``, this machine's address on the network), ``"loopback"`` (the
    server listens on this machine only: restart it with ``command``), ``"no_network"`` (it
    listens everywhere, but this machine has no address on a network) or ``"unknown"`` (the
    app was started some other way, by ``flask run`` for one).
    """

    kind: str | None = None
    here: str = ""
    address: str = ""
    command: str = ""

    @property
    def base(self) -> str | None:
        if self.kind != "lan":
            return None
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"http://{host}:{current_app.config['SERVE_PORT']}"

    def url(self, endpoint: str, **values: Any) -> str:
        """The full link of ``endpoint``, on the address the other phones can open."""
        base = self.base
        if base is None:
            return url_for(endpoint, _external=True, **values)
        return base + url_for(endpoint, **values)


def share_reach() -> Reach:
    """How the other phones reach the links of the share page now being answered."""
    here = urlsplit(request.host_url).hostname or ""
    if current_app.config["PROXIES"] or not server.is_loopback(here):
        return Reach()  # the page's own address (behind a proxy: the proxy's)
    listening = current_app.config.get("SERVE_HOST")
    if listening is None:
        return Reach("unknown", here)
    if server.is_loopback(listening):
        port = current_app.config["SERVE_PORT"]
        command = "scorekeeper serve --host 0.0.0.0" + ("" if port == DEFAULT_PORT else f" --port {port}")
        return Reach("loopback", here, command=command)
    if listening not in server.ALL_INTERFACES:
        return Reach("lan", here, address=listening)
    address = server.lan_address()
    return Reach("no_network", here) if address is None else Reach("lan", here, address=address)
