"""``pip install .`` (not only an editable install) gives a working ``scorekeeper`` command."""

import json
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_plain_install_from_a_wheel_checks_a_match(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    # The agreed layout keeps templates/ and static/ at the top; the wheel must carry them.
    for shipped in (
        "templates/base.html",
        "templates/matches/_turn.html",
        "static/app.css",
        "static/vendor/htmx-2.0.11.min.js",
    ):
        assert f"scorekeeper/web/{shipped}" in names, shipped
    env_dir = tmp_path / "venv"
    venv.create(
        env_dir
    )  # no pip of its own (ensurepip took a third of this test): this one's installs into it
    python = env_dir / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
    )
    # The command is the web shell's (it adds serve, export, import, backup to the core's check), so
    # it needs the dependencies: lend it this environment's, behind the wheel's own package.
    (site,) = (env_dir / "lib").glob("python3*/site-packages")
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    match = ROOT / "tests" / "matches" / "two-players-to-royal-flush.json"
    result = subprocess.run(
        [str(env_dir / "bin" / "scorekeeper"), "check", str(match), "--json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,  # not the checkout: the installed package must stand alone
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["winner"] == "Bo"
    origin = subprocess.run(
        [
            str(env_dir / "bin" / "python"),
            "-c",
            "import scorekeeper.web.settings; print(scorekeeper.web.settings.TEMPLATES)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert origin.stdout.strip().startswith(str(site)), origin.stdout  # the wheel's copy, not the checkout
