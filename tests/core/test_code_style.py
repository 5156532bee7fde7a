"""Style is checked with the tests: ruff (lint and format) everywhere, mypy --strict on the core."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_finds_nothing():
    result = run(sys.executable, "-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_formatted():
    result = run(sys.executable, "-m", "ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_passes_mypy_strict():
    result = run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_two_test_files_share_a_name():
    """pytest imports test files by their name (tests/web and tests/browser are both on its path)."""
    from collections import Counter
    from pathlib import Path

    names = Counter(p.name for p in (Path(__file__).parents[1]).rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []


# The web shell's shape (issue 26): read from the source with ast, so that nothing is imported here.
PACKAGE = ROOT / "scorekeeper"
WEB = PACKAGE / "web"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The scorekeeper modules ``path`` imports, wherever in it: ``from package import name`` is the
    submodule when there is one, else the package itself (a name its ``__init__`` defines)."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module in modules:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in modules else node.module)
    return found


def test_no_module_imports_itself_back_through_others():
    """No import cycle among scorekeeper's modules (a package's own ``__init__``, run first by the
    import of any module inside it, is not counted as imported by them)."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: imports_of(path, set(paths)) - {name} for name, path in paths.items()}
    cycles: list[list[str]] = []
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycles.append(trail[trail.index(name) :] + [name])
            return
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert cycles == []


def test_no_web_module_is_over_250_lines_and_create_app_is_under_60():
    import ast

    long = {
        str(p.relative_to(WEB)): n for p in WEB.rglob("*.py") if (n := len(p.read_text().splitlines())) > 250
    }
    assert long == {}
    tree = ast.parse((WEB / "__init__.py").read_text())
    (factory,) = [
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "create_app"
    ]
    assert factory.end_lineno is not None and factory.end_lineno - factory.lineno + 1 < 60


def test_every_route_and_blueprint_lives_in_the_routes_package():
    import ast

    def defines_routes(path: Path) -> bool:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Blueprint":
                return True
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    call = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if isinstance(call, ast.Attribute) and call.attr in {"route", "get", "post"}:
                        if getattr(call.value, "id", None) in {"bp", "app"}:
                            return True
        return False

    outside = [
        str(p.relative_to(WEB)) for p in WEB.rglob("*.py") if defines_routes(p) and "routes" not in p.parts
    ]
    assert outside == []
