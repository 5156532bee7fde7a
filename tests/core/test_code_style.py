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
