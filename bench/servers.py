"""Both servers of a bench, started alike, and what they cost, read from /proc.

The app (``scorekeeper serve``) and the reference (bench/minimal_app.py) run under
the same ``serve()``: gunicorn's worker class, workers, threads, keep-alive (2 s)
and every other option are the same for both. CPU is utime + stime of the
gunicorn master and its workers (and of workers that have exited, through the
master's cutime + cstime); memory is each worker's resident set.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-key-of-the-capacity-runs-0123456789"
TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (field 3 onwards)."""
    return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()


class Served:
    """One server: ``app``, ``minimal``, ``app-busy-handler`` (the app without its write lock) or
    ``app-through-flask`` (without the unchanged check in front of Flask)."""

    def __init__(
        self, kind: str, db: Path, workers: int = 1, threads: int = 8, worker_class: str = "gthread"
    ) -> None:
        self.kind, self.db, self.workers, self.threads = kind, db, workers, threads
        self.worker_class = worker_class
        self.port = free_port()
        self.log = db.with_name(f"{db.name}.{kind}.log")  # gunicorn's error log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        shape = ["--workers", str(self.workers), "--threads", str(self.threads)]
        if self.kind != "minimal":  # the minimal app has no such option: gthread only
            shape += ["--worker-class", self.worker_class]
        where = ["--port", str(self.port), "--db", str(self.db), *shape]
        if self.kind == "minimal":
            return [sys.executable, str(ROOT / "bench" / "minimal_app.py"), *where]
        if self.kind == "app-busy-handler":
            return [sys.executable, str(ROOT / "bench" / "without_write_lock.py"), "serve", *where]
        if self.kind == "app-through-flask":
            return [sys.executable, str(ROOT / "bench" / "without_unchanged_check.py"), "serve", *where]
        return [sys.executable, "-m", "scorekeeper.web.cli", "serve", *where]

    def start(self) -> Served:
        env = {**os.environ, "SCOREKEEPER_SECRET_KEY": SECRET, "PYTHONPATH": str(ROOT)}
        with self.log.open("ab") as log:  # a file, not a pipe nobody reads: a full pipe would stall it
            self.process = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.kind} exited: {self.log.read_text()[-2000:]}")
            if len(self.worker_pids()) == self.workers:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                    return self
                except OSError:
                    pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.kind} did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)

    def worker_pids(self) -> list[int]:
        assert self.process is not None
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if int(_stat(int(entry.name))[1]) == self.process.pid:
                        pids.append(int(entry.name))
                except (OSError, IndexError):
                    continue  # a process that ended meanwhile
        return pids

    def cpu_seconds(self) -> float:
        """CPU the server has used so far: master, workers, and workers that have exited."""
        assert self.process is not None
        master = _stat(self.process.pid)
        total = sum(int(x) for x in master[11:15])  # utime, stime, cutime, cstime
        for pid in self.worker_pids():
            try:
                total += sum(int(x) for x in _stat(pid)[11:13])
            except OSError:
                continue
        return total / TICK

    def worker_rss_mb(self) -> list[float]:
        sizes = []
        for pid in self.worker_pids():
            try:
                for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        sizes.append(int(line.split()[1]) / 1024)
            except OSError:
                continue
        return sizes


@contextmanager
def running(*servers: Served) -> Iterator[None]:
    """Start the servers; stop every one that started, whatever happens."""
    started: list[Served] = []
    try:
        for server in servers:
            started.append(server.start())
        yield
    finally:
        for server in started:
            server.stop()


def own_cpu_seconds() -> float:
    """CPU this process (the load generator) has used so far."""
    return sum(int(x) for x in _stat(os.getpid())[11:13]) / TICK


def machine_busy_seconds() -> float:
    """CPU time all cores have been busy so far (/proc/stat): with the servers' and the generator's
    own, it tells how much other processes took from a run."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICK  # all but idle and iowait


def min_median(values: list[float], digits: int = 1) -> str:
    """``min/median`` of a figure's runs (issue 14: every figure is min/median of 3 runs)."""
    if not values:
        return "-"
    return f"{min(values):.{digits}f}/{statistics.median(values):.{digits}f}"


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted values (nearest rank), or nan for none."""
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]
