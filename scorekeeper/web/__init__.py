"""The web shell: an app factory in the style of Flask's tutorial (flaskr).

This package is the only place that imports Flask or sqlite-utils; the rules
live in the core and are only displayed here. The settings are ``settings.py``'s,
the routes ``routes/``'s, every SQL statement ``store/``'s, and what the
templates read ``present/``'s.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_compress import Compress
from htmx_flask import Htmx

from scorekeeper.web import cache, datadir, errors, live, roles, routes, security, settings
from scorekeeper.web.present import i18n, jinja
from scorekeeper.web.store import db


def create_app(test_config: dict[str, Any] | None = None, *, database: str | None = None) -> Flask:
    """Create the app; ``test_config`` overrides the configuration (tests pass a temporary DATABASE).

    ``database`` is the SQLite file (the command line's ``--db``); by default
    SCOREKEEPER_DATABASE, else ``scorekeeper.sqlite`` in the data folder
    (datadir.py), where the secret key is kept too unless SCOREKEEPER_SECRET_KEY
    gives it. The data folder is Flask's instance folder (``config.py`` is read
    from it); it is looked for, moved from the old place and made only when the
    database or the key is to be kept there.
    """
    app = Flask(
        __name__,
        instance_path=str(datadir.user_folder()),
        instance_relative_config=True,
        template_folder=str(settings.TEMPLATES),
        static_folder=str(settings.STATIC),
    )
    settings.configure(app, test_config, database)
    security.trust_proxies(app)
    settings.keep_data(app)
    app.before_request(security.allow_long_match_files)  # before CSRFProtect, which reads the form
    Htmx(app)
    Compress(app)  # zstd, brotli or gzip, as the phone accepts: the table's wifi may be poor
    security.init_app(app)
    cache.init_app(app)
    db.init_app(app)
    security.check_key_fits(app)
    roles.init_app(app)
    i18n.init_app(app)
    live.init_app(app)
    routes.register(app)
    jinja.init_app(app)
    app.after_request(security.add_security_headers)
    errors.init_app(app)
    return app
