"""The core imports nothing from the web layer (STYLE.md, section 1)."""

import ast
import subprocess
import sys
from pathlib import Path

import scorekeeper

FORBIDDEN = {"flask", "sqlite_utils", "htmx_flask", "flask_wtf", "werkzeug", "jinja2", "gunicorn"}
CORE = Path(scorekeeper.__file__).parent


def test_no_core_module_imports_a_web_library():
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
                # A module loaded by its name as a string is an import this test cannot see.
                assert name.split(".")[0] != "importlib", f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "__import__", f"{path.name} calls __import__"


def test_importing_the_whole_core_loads_no_web_library():
    modules = [f"scorekeeper.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__"]
    code = f"import sys, {', '.join(modules)}; print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r} or m.startswith('scorekeeper.web')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
