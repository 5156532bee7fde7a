"""The web shell: an app factory in the style of Flask's tutorial (flaskr).

This package is the only place that imports Flask or sqlite-utils; the rules
live in the core and are only displayed here.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask
from flask_compress import Compress
from flask_wtf.csrf import CSRFProtect
from htmx_flask import Htmx

from scorekeeper import __version__
from scorekeeper.web import storage
from scorekeeper.web.picker import picker

PACKAGE = Path(__file__).resolve().parent
# The agreed layout keeps templates/ and static/ at the top of the repository; an
# installed wheel carries them inside the package (pyproject.toml, force-include).
ROOT = PACKAGE.parents[1]
TEMPLATES = next(p for p in (PACKAGE / "templates", ROOT / "templates") if p.is_dir())
STATIC = next(p for p in (PACKAGE / "static", ROOT / "static") if p.is_dir())

csrf = CSRFProtect()


def _secret_key(instance: Path) -> str:
    """The instance's secret key: generated into the instance folder on first start."""
    path = instance / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create the app; ``test_config`` overrides the configuration (tests pass a temporary DATABASE)."""
    from scorekeeper.web import history, matches

    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(TEMPLATES),
        static_folder=str(STATIC),
    )
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.from_mapping(
        DATABASE=os.environ.get("SCOREKEEPER_DATABASE")
        or os.path.join(app.instance_path, "scorekeeper.sqlite"),
        MAX_CONTENT_LENGTH=16 * 1024,
        WTF_CSRF_TIME_LIMIT=None,  # a match lasts hours; the token must not expire mid-game
        APP_VERSION=__version__,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))

    @app.before_request
    def allow_long_match_files() -> None:
        # Registered before CSRFProtect, which reads the form: only an import may post a long file.
        from flask import request

        if request.endpoint == "history.import_file":
            request.max_content_length = history.IMPORT_LIMIT

    Htmx(app)
    Compress(app)  # zstd, brotli or gzip, as the phone accepts: the table's wifi may be poor
    csrf.init_app(app)
    storage.init_app(app)

    app.register_blueprint(matches.bp)
    app.register_blueprint(history.bp)
    app.jinja_env.globals["htmx_script"] = matches.HTMX_SCRIPT
    app.jinja_env.globals["picker"] = picker
    return app
