"""Storage faults made for real (TRUST.md R6): a small tmpfs to fill, and read-only bind mounts.

Mounting needs root. Without root the tests that use these skip and say so. As
root, a refused mount skips them too, except where ``SCOREKEEPER_CI`` (set by
.ci/run, which runs as root) or ``CI`` is set: there it fails them, so they can
never skip quietly in CI.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        why = f"mount {' '.join(args)} was refused: {done.stderr.strip()}"
        if os.environ.get("SCOREKEEPER_CI") or os.environ.get("CI"):
            pytest.fail(why + " (CI runs as root: these tests must run there)")
        pytest.skip(why)


def _unmount(target: Path) -> None:
    if subprocess.run(["umount", str(target)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(target)], check=True)  # a file still open: detach it anyway


def need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a small disk needs root (CI runs as root)")


@contextlib.contextmanager
def small_disk(where: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where`` (made if missing), unmounted afterwards."""
    need_root()
    where.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where))
    try:
        yield where
    finally:
        _unmount(where)


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """``path`` (a file or a folder) read-only from now on for whoever opens it: a read-only bind mount.

    Files already open for writing stay writable, as with ``chmod`` or ``chattr +i``.
    """
    need_root()
    _mount("--bind", str(path), str(path))
    try:
        _mount("-o", "remount,ro,bind", str(path))
        yield path
    finally:
        _unmount(path)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` with one file; return it (delete it to give the space back)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    block = b"\0" * 65536
    try:
        while True:
            try:
                os.write(fd, block)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                if len(block) == 1:
                    break
                block = block[: len(block) // 2]
    finally:
        os.close(fd)
    return filler
