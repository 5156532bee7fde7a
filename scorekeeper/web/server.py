"""``scorekeeper serve``: run the app under gunicorn (one gevent worker by default).

Before it starts it says where phones should open it: the machine's address on
the network (and its QR code), or why they cannot reach it.
"""

from __future__ import annotations

import ctypes
import gc
import socket
import sys
from collections.abc import Callable
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication

from scorekeeper.web import collector, qr


class _Server(BaseApplication):  # type: ignore[misc]
    def __init__(self, app: Flask, options: dict[str, Any]) -> None:
        self.app, self.options = app, options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        return self.app


# A request that computes for long (an import's replay, a long history page) holds the GIL, and
# a thread answering a tap waits for it at each return from I/O (its socket, each SQLite call):
# up to the switch interval each time, 5 ms by default. Half a millisecond keeps taps quick
# beside such a request (TRUST.md I7: tap p95 from 132 to 88 ms while two clients import
# 5,000-event files back to back), for a few microseconds per switch, paid only when threads
# compete.
SWITCH_INTERVAL = 0.0005

# glibc serves a large block (an import's body, a long history page) with mmap and unmaps it when
# freed, but raises that threshold to the size of each large block freed: later blocks of that size
# come from the arena of whichever thread asked, and stay in it. With 8 threads the worker kept
# 100-145 MB after 100 imports of 2 MiB were viewed, and 78 MB with the threshold fixed (TRUST.md I7).
M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)
LARGE_BLOCK = 128 * 1024  # glibc's own starting threshold

# The request path without its query string, and no Referer: capability secrets travel in
# query strings, and must never reach a log (TRUST.md S9).
ACCESS_LOG_FORMAT = '%(h)s %(t)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms'


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


def _return_large_blocks() -> None:
    """Fix the C allocator's mmap threshold, so that large blocks go back to the system (glibc only)."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)  # the C library the interpreter runs on
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK)


# The live view's streams a worker holds (live.py). gthread gives each open response a thread
# of its own: half the threads may stream, the others answer taps and polls. gevent gives each a
# greenlet: thousands fit in a worker (docs/scaling.md).
WORKER_CLASSES = ("gthread", "gevent")
GEVENT_CONNECTIONS = 5000
GEVENT_STREAMS = 4000


# Seconds an idle connection is kept open. gevent holds one cheaply (a greenlet), so a phone that
# taps every few seconds keeps its connection (under lan; under tls the phone's connection is the
# proxy's): 5.5 -> 5.1 ms of server CPU a tap at 1,000 tables, no TCP handshake on the phone. A kept
# connection holds one of a worker's GEVENT_CONNECTIONS, beside up to GEVENT_STREAMS streams.
# gthread counts each kept connection against its threads' slots, so it keeps gunicorn's default.
KEEPALIVE = {"gevent": 30, "gthread": 2}


def _in_each_worker(arbiter: Any, worker: Any) -> None:
    """Gunicorn's ``post_fork`` hook: a worker freezes what survives each full collection (collector.py)."""
    collector.install()


def live_streams(worker_class: str, threads: int) -> int:
    """How many live-view streams one worker may hold under ``worker_class``."""
    return GEVENT_STREAMS if worker_class == "gevent" else threads // 2


def serve(
    app: Flask,
    host: str,
    port: int,
    workers: int = 1,
    threads: int = 8,
    access_log: str | None = None,
    worker_class: str = "gevent",
) -> None:
    """Serve an app until stopped.

    The app is created (and the database migrated and checked) once, before the workers
    fork: they answer as soon as the port is open. It opens no connection a worker inherits.
    """
    if worker_class not in WORKER_CLASSES:
        raise ValueError(f"the worker class must be one of {', '.join(WORKER_CLASSES)}, not {worker_class!r}")
    if "live" in app.extensions:  # the benches' minimal app is served alike, and has no live view
        app.extensions["live"].limit = live_streams(worker_class, threads)
    for name in app.jinja_env.list_templates(extensions=["html"]):
        app.jinja_env.get_template(name)  # compiled once here, not in each worker's first requests
    sys.setswitchinterval(SWITCH_INTERVAL)  # inherited by the workers, which fork from here
    _return_large_blocks()
    # What the app made at start lives as long as the process: kept out of the collector's way
    # (a full collection scanned it all, 90,000 objects, in every pause), and untouched pages
    # stay shared between the forked workers (the gc module's own advice for fork servers)
    # until a worker's collector first thaws everything (collector.py), 33 full collections in.
    gc.collect()
    gc.freeze()
    lan = lan_address() if host in ALL_INTERFACES else None
    print(banner(host, port, lan, qr_code=sys.stdout.isatty()), flush=True)
    _Server(
        app,
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "threads": threads,
            "worker_class": worker_class,
            "worker_connections": GEVENT_CONNECTIONS if worker_class == "gevent" else 1000,
            "accesslog": access_log,
            "access_log_format": ACCESS_LOG_FORMAT,
            "errorlog": "-",
            "loglevel": "warning",
            "graceful_timeout": 5,
            "keepalive": KEEPALIVE[worker_class],
            "preload_app": True,
            "post_fork": _in_each_worker,
            # The app alone decides which X-Forwarded-* to trust (PROXIES, TRUST.md S13): gunicorn
            # would otherwise take X-Forwarded-Proto from any process on 127.0.0.1.
            "secure_scheme_headers": {},
        },
    ).run()
