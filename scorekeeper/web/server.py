"""``scorekeeper serve``: the app under waitress, the one serving setup (docs/scaling.md says why).

waitress reads every request whole (headers and body) and writes every answer
in one thread of its own that waits on all the sockets at once; only a request
read whole takes one of its threads. So a phone that sends slowly, holds idle
connections or sends a body the app refuses costs the server a socket, never a
thread another table's tap waits for (TRUST.md I8). Each live-view stream holds
a thread for as long as it is open: the pool has ``threads`` for requests and
``streams`` more, and a stream beyond them is refused so that its page polls.

Before it starts it says where phones should open it: the machine's address on
the network (and its QR code), or why they cannot reach it.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import resource
import socket
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

import waitress
from flask import Flask

from scorekeeper.web.present import qr
from scorekeeper.web.settings import (
    CONNECTIONS,
    FILES_SPARE,
    IDLE_SECONDS,
    LARGEST_BODY,
    PER_ADDRESS,
    STREAMS,
    THREADS,
)

# glibc serves a large block (an import's body, a long history page) with mmap and unmaps it when
# it is freed, but then raises that threshold to the block's size: later blocks that large come
# from the arena of the thread that asked, and stay there. And each thread that allocates may get
# an arena of its own, up to 16 on two cores, each keeping what it freed. Highest RSS while imported
# matches are viewed (TRUST.md I7 bounds it at 150 MB): 100 of them (a quarter of 5,000 events, a
# quarter of 2 MB, half short), 256 MB with neither setting, 134 MB with both; 25 of 5,000 events,
# 143 MB with the threshold alone, 115 MB with two arenas as well; 100 all different and all as
# large as allowed, 172 and 144 MB. The interpreter's lock runs one thread's Python at a time, so
# threads seldom allocate at once: two arenas are enough.
M_MMAP_THRESHOLD = -3  # mallopt's parameter numbers (malloc.h)
M_ARENA_MAX = -8
LARGE_BLOCK = 128 * 1024  # glibc's own starting threshold
ARENAS = 2

ALL_INTERFACES = ("0.0.0.0", "::", "")
# Where traffic to each private range would leave this machine; the first that has a route wins.
PRIVATE_PROBES = ("10.255.255.255", "172.31.255.255", "192.168.255.255")


def lan_address(new_socket: Callable[..., socket.socket] = socket.socket) -> str | None:
    """This machine's IPv4 address on its local network, or None if it has none.

    Connecting a UDP socket sends nothing: the kernel only picks the interface (and so
    the address) that would carry traffic to a private address. No packet leaves.
    """
    for target in PRIVATE_PROBES:
        try:
            with new_socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect((target, 9))
                address = str(probe.getsockname()[0])
        except OSError:
            continue  # no route to that range
        if not address.startswith(("127.", "0.")):
            return address
    return None


def is_loopback(host: str) -> bool:
    return host == "localhost" or host.startswith("127.") or host == "::1"


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def banner(host: str, port: int, lan: str | None, qr_code: bool) -> str:
    """What ``serve`` prints: where this machine and the phones at the table open the app."""
    lines = [f"Chicago Scorekeeper is listening on {host or '0.0.0.0'} port {port}; Ctrl-C stops it."]
    if host in ALL_INTERFACES or is_loopback(host):
        lines.append(f"On this machine open {_url(host if is_loopback(host) else '127.0.0.1', port)}")
    if is_loopback(host):
        lines.append(
            f"Other phones cannot reach {host}: to let phones on the same network in, start it with"
            " --host 0.0.0.0 (only on a network you trust)."
        )
        return "\n".join(lines)
    phones = lan if host in ALL_INTERFACES else host
    if phones is None:
        lines.append(f"Found no network address here: phones open http://<this machine's address>:{port}/")
        return "\n".join(lines)
    lines.append(f"Phones on the same network open {_url(phones, port)}" + (" or scan:" if qr_code else ""))
    if qr_code:
        lines.append(qr.terminal(_url(phones, port)))
    return "\n".join(lines)


def return_freed_memory() -> None:
    """Fix the C allocator's mmap threshold, so that large blocks go back to the system, and keep
    its arenas to two, so that what one thread freed serves the others (glibc only)."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)  # the C library the interpreter runs on
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK)
        mallopt(M_ARENA_MAX, ARENAS)


def open_files_allowed(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (up to its hard limit); return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
        soft = raised
    return wanted if soft == resource.RLIM_INFINITY else soft


WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class AccessLog:
    """One line per request: address, method, path without its query string, status, milliseconds.

    The hand-over and live-view secrets travel only in query strings and are never
    logged, nor is the Referer (TRUST.md S9). A stream's line is written when it opens.
    """

    def __init__(self, app: WSGIApp, logger: logging.Logger) -> None:
        self.app, self.logger = app, logger

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.monotonic()

        def logged(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            self.logger.info(
                '%s "%s %s" %s %.0fms',
                environ.get("REMOTE_ADDR", "-"),
                environ.get("REQUEST_METHOD", "-"),
                environ.get("PATH_INFO", "-"),
                status.split(" ", 1)[0],
                (time.monotonic() - started) * 1000,
            )
            return start_response(status, headers, *rest)

        return self.app(environ, logged)


def _access_logger(path: str) -> logging.Logger:
    logger = logging.getLogger("scorekeeper.access")
    logger.handlers.clear()
    handler = logging.StreamHandler(sys.stdout) if path == "-" else logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return logger


def limit_per_address(server: Any, most: int) -> None:
    """Close a new connection at once when its address already holds ``most``."""
    make = server.channel_class

    def channel(owner: Any, conn: socket.socket, addr: Any, adj: Any, map: Any = None) -> Any:  # noqa: A002
        held = sum(1 for open_ in list(owner.active_channels.values()) if open_.addr[0] == addr[0])
        if held >= most:
            conn.close()
            return None
        return make(owner, conn, addr, adj, map=map)

    server.channel_class = channel


def serve(
    app: Flask,
    host: str,
    port: int,
    threads: int = THREADS,
    streams: int = STREAMS,
    access_log: str | None = None,
) -> None:
    """Serve an app until stopped (Ctrl-C): ``threads`` for requests, ``streams`` for live views."""
    if "live" in app.extensions:  # the benches' minimal app is served alike, and has no live view
        app.extensions["live"].limit = streams
    return_freed_memory()
    connections = min(CONNECTIONS, open_files_allowed(CONNECTIONS + FILES_SPARE) - FILES_SPARE)
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.WARNING)
    wsgi: WSGIApp = app if access_log is None else AccessLog(app, _access_logger(access_log))
    lan = lan_address() if host in ALL_INTERFACES else None
    print(banner(host, port, lan, qr_code=sys.stdout.isatty()), flush=True)
    server = waitress.create_server(
        wsgi,
        host=host,
        port=port,
        threads=threads + streams,
        connection_limit=connections,
        channel_timeout=IDLE_SECONDS,
        cleanup_interval=max(1, IDLE_SECONDS // 6),
        max_request_body_size=LARGEST_BODY,
        asyncore_use_poll=True,  # select() stops at 1,024 sockets
        ident="scorekeeper",
        # The app alone decides which X-Forwarded-* to trust (PROXIES, TRUST.md S13).
        trusted_proxy=None,
        clear_untrusted_proxy_headers=False,
    )
    # What is alive once the app is made (Flask, Jinja, the catalogues, the compiled rules: most
    # of the process's objects) stays for its life: out of the collector's reach, a full collection
    # scans only what requests made. Without it the full collections paused every thread 50-80 ms
    # (gc.callbacks) and the tap p99 at 200 tables was 73-208 ms (bench/capacity.py, 3 December).
    gc.collect()
    gc.freeze()
    if not app.config.get("PROXIES"):
        # One listening socket, or several (a name with an IPv4 and an IPv6 address) in one loop.
        listening = [s for s in getattr(server, "map", {}).values() if hasattr(s, "channel_class")]
        for each in [server] if hasattr(server, "channel_class") else listening:
            limit_per_address(each, PER_ADDRESS)
    server.run()
