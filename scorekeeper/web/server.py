"""``scorekeeper serve``: run the app under gunicorn (one worker, several threads by default)."""

from __future__ import annotations

import os
from typing import Any

from gunicorn.app.base import BaseApplication

from scorekeeper.web import create_app


class _Server(BaseApplication):  # type: ignore[misc]
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app()


# The request path without its query string, and no Referer: capability secrets travel in
# query strings, and must never reach a log (TRUST.md S9).
ACCESS_LOG_FORMAT = '%(h)s %(t)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms'


def serve(
    host: str, port: int, db: str | None, workers: int = 1, threads: int = 8, access_log: str | None = None
) -> None:
    """Create and migrate the database, then serve until stopped."""
    if db:
        os.environ["SCOREKEEPER_DATABASE"] = os.path.abspath(db)
    create_app()  # migrate once before the workers start
    print(f"Chicago Scorekeeper on http://{host}:{port}/  (Ctrl-C stops it)", flush=True)
    _Server(
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
        }
    ).run()
