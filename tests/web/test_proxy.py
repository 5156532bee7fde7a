"""TRUST.md S13: behind a TLS proxy, links say the proxy's scheme and host; every cookie is Secure.

``X-Forwarded-*`` is trusted from exactly ``PROXIES`` proxies (0 under lan, 1 under tls by
default); anything more in the header, or any such header without a proxy, is ignored.
"""

from __future__ import annotations

import re

import pytest
from flask import request

from scorekeeper.web import create_app, server

# Every test here is about what the settings profile changes (tests/web/conftest.py).
pytestmark = pytest.mark.both_profiles

FORWARDED = {
    "X-Forwarded-For": "203.0.113.7",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "chicago.example.org",
    "X-Forwarded-Port": "443",
}
NEW = {"name": ["Anna", "Bo"], "dealer": "0", "start": "1"}


class Stopped:
    """A server made and never run: what ``serve`` set up, without serving."""

    def __init__(self, _: object = None) -> None:
        self.channel_class = object

    def run(self) -> None:
        pass


def with_proxies(app, proxies, **config):
    """The same app and database, with ``PROXIES`` set, and a route that says what the app sees."""
    behind = create_app({**app.config, "PROXIES": proxies, **config})

    @behind.get("/seen")
    def seen() -> dict:
        return {"addr": request.remote_addr, "url": request.url_root, "secure": request.is_secure}

    return behind


def share_links(client, headers) -> list[str]:
    started = client.post("/new", data=NEW, headers=headers)
    assert started.status_code == 303
    match_id = started.headers["Location"].rsplit("/", 1)[1]
    page = client.get(f"/m/{match_id}/handover", headers=headers).text
    return re.findall(r'href="(https?://[^"/]+/(?:watch|claim)\?t=[^"]+)"', page)


def test_links_say_the_proxys_scheme_and_host(app):
    links = share_links(with_proxies(app, 1).test_client(), FORWARDED)
    assert len(links) == 2
    assert all(link.startswith("https://chicago.example.org/") for link in links), links


def test_a_forged_forwarded_header_is_ignored_without_a_proxy(app):
    client = with_proxies(app, 0).test_client()
    scheme = app.config["PREFERRED_URL_SCHEME"]  # the test client's own scheme: https under tls
    links = share_links(client, FORWARDED)
    assert len(links) == 2 and all(link.startswith(f"{scheme}://localhost/") for link in links), links
    assert client.get("/seen", headers=FORWARDED).json == {
        "addr": "127.0.0.1",
        "url": f"{scheme}://localhost/",
        "secure": scheme == "https",
    }


def test_only_the_configured_number_of_proxies_is_trusted(app):
    forged = {**FORWARDED, "X-Forwarded-For": "6.6.6.6, 203.0.113.7", "X-Forwarded-Proto": "http, https"}
    one = with_proxies(app, 1).test_client().get("/seen", headers=forged).json
    assert one == {"addr": "203.0.113.7", "url": "https://chicago.example.org/", "secure": True}
    two = with_proxies(app, 2).test_client().get("/seen", headers=forged).json
    assert two["addr"] == "6.6.6.6" and two["secure"] is False


def test_the_default_is_no_proxy_under_lan_and_one_under_tls(app):
    expected = {"lan": 0, "tls": 1}[app.config["PROFILE"]]
    assert app.config["PROXIES"] == expected
    links = share_links(app.test_client(), FORWARDED)
    assert links and all(
        link.startswith("https://chicago.example.org/" if expected else "http://localhost/") for link in links
    )


def test_the_setting_comes_from_the_environment(app, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_PROXIES", "2")
    config = {key: value for key, value in app.config.items() if key != "PROXIES"}
    assert create_app(config).config["PROXIES"] == 2


@pytest.mark.parametrize("proxies", ["x", "-1", "6", "1.5", "١", True])
def test_a_setting_that_is_not_a_number_of_proxies_is_refused(app, proxies):
    with pytest.raises(RuntimeError, match="SCOREKEEPER_PROXIES"):
        with_proxies(app, proxies)


def test_rate_limits_count_each_phone_behind_the_proxy(app):
    client = with_proxies(app, 1, RATELIMIT_ENABLED=True).test_client()
    wrong = [client.get("/claim?t=wrong", headers=FORWARDED).status_code for _ in range(31)]
    assert wrong[:30] == [404] * 30 and wrong[30] == 429
    elsewhere = {**FORWARDED, "X-Forwarded-For": "198.51.100.9"}
    assert client.get("/claim?t=wrong", headers=elsewhere).status_code == 404


def test_every_cookie_is_secure_under_tls(app):
    behind = with_proxies(app, 1)
    client = behind.test_client()
    responses = [
        client.post("/language", data={"lang": "sv", "next": "/"}, headers=FORWARDED),
        client.post("/new", data=NEW, headers=FORWARDED),
    ]
    cookies = [cookie for response in responses for cookie in response.headers.getlist("Set-Cookie")]
    assert {cookie.split("=", 1)[0] for cookie in cookies} == {"lang", behind.config["SESSION_COOKIE_NAME"]}
    if app.config["PROFILE"] == "tls":
        assert all("; Secure" in cookie for cookie in cookies), cookies
    else:  # plain HTTP on the table's network: the documented exception (S7)
        assert not any("; Secure" in cookie for cookie in cookies), cookies


def test_the_server_leaves_the_forwarded_headers_to_the_app(app, monkeypatch, capsys):
    """waitress would otherwise drop X-Forwarded-* from every peer (or trust them from one it is
    told of): the app alone decides, by PROXIES."""
    started = {}
    monkeypatch.setattr(
        server.waitress, "create_server", lambda app, **options: Stopped(started.update(options))
    )
    server.serve(app, "127.0.0.1", 0)
    assert started["trusted_proxy"] is None and started["clear_untrusted_proxy_headers"] is False
