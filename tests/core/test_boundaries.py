"""The core imports nothing from the web layer (STYLE.md, section 1)."""

import ast
from pathlib import Path

import scorekeeper

FORBIDDEN = {"flask", "sqlite_utils", "htmx_flask", "flask_wtf", "werkzeug", "jinja2"}
CORE = Path(scorekeeper.__file__).parent


def test_core_imports_no_web_library():
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
                assert not name.startswith("scorekeeper.web"), f"{path.name} imports {name}"
