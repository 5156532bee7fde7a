"""``scorekeeper serve``: run the app under gunicorn (one worker, several threads by default)."""

from __future__ import annotations

import sys
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication


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

# The request path without its query string, and no Referer: capability secrets travel in
# query strings, and must never reach a log (TRUST.md S9).
ACCESS_LOG_FORMAT = '%(h)s %(t)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms'


def serve(
    app: Flask, host: str, port: int, workers: int = 1, threads: int = 8, access_log: str | None = None
) -> None:
    """Serve an app until stopped.

    The app is created (and the database migrated and checked) once, before the workers
    fork: they answer as soon as the port is open. It opens no connection a worker inherits.
    """
    for name in app.jinja_env.list_templates(extensions=["html"]):
        app.jinja_env.get_template(name)  # compiled once here, not in each worker's first requests
    sys.setswitchinterval(SWITCH_INTERVAL)  # inherited by the workers, which fork from here
    print(f"Chicago Scorekeeper on http://{host}:{port}/  (Ctrl-C stops it)", flush=True)
    _Server(
        app,
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "threads": threads,
            "worker_class": "gthread",
            "accesslog": access_log,
            "access_log_format": ACCESS_LOG_FORMAT,
            "errorlog": "-",
            "loglevel": "warning",
            "graceful_timeout": 5,
            "preload_app": True,
        },
    ).run()
