"""``scorekeeper serve``: run the app under gunicorn (one worker, several threads by default)."""

from __future__ import annotations

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
            # The app alone decides which X-Forwarded-* to trust (PROXIES, TRUST.md S13): gunicorn
            # would otherwise take X-Forwarded-Proto from any process on 127.0.0.1.
            "secure_scheme_headers": {},
        },
    ).run()
