"""The servers of the benches, started alike, and what they cost, read from /proc.

The app is started as a person starts it: ``scorekeeper serve`` (waitress, one process; its
``--threads`` and ``--streams`` only when a bench asks for other values than the defaults).
The reference (bench/minimal_app.py) runs under the same ``serve()``. A bench may serve another
source tree instead (``tree``: an older checkout, whose own ``scorekeeper serve`` defaults then
apply, gunicorn's included): its code comes first on PYTHONPATH. CPU is utime + stime of the
server's process and of every process under it (and of those that have exited, through the
first one's cutime + cstime); memory is the resident set of them all (one process under waitress).
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
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


def _children() -> dict[int, list[int]]:
    """Every process's children, by parent pid."""
    found: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                found.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
            except (OSError, IndexError):
                continue  # a process that ended meanwhile
    return found


class Served:
    """One server: ``app`` (``scorekeeper serve``) or ``minimal`` (bench/minimal_app.py)."""

    def __init__(
        self,
        kind: str,
        db: Path,
        threads: int | None = None,
        streams: int | None = None,
        env: Mapping[str, str] | None = None,
        tree: Path = ROOT,
    ) -> None:
        self.kind, self.db, self.threads, self.streams = kind, db, threads, streams
        self.env, self.tree = dict(env or {}), tree
        self.port = free_port()
        self.log = db.with_name(f"{db.name}.{kind}.log")  # the server's stderr
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def environ(self) -> dict[str, str]:
        """The server's environment: its code first on the path, the benches' key, ``env``."""
        return {**os.environ, "SCOREKEEPER_SECRET_KEY": SECRET, "PYTHONPATH": str(self.tree), **self.env}

    def flags(self) -> list[str]:
        shape = [] if self.threads is None else ["--threads", str(self.threads)]
        return shape + ([] if self.streams is None else ["--streams", str(self.streams)])

    def command(self) -> list[str]:
        where = ["--port", str(self.port), "--db", str(self.db), *self.flags()]
        if self.kind == "minimal":  # it listens on 127.0.0.1 only
            return [sys.executable, str(ROOT / "bench" / "minimal_app.py"), *where]
        # The benches stay on this machine: the app listens on every interface by default.
        return [sys.executable, "-m", "scorekeeper.web.cli", "serve", "--host", "127.0.0.1", *where]

    def cli(self, *words: str) -> str:
        """Run another ``scorekeeper`` command of the same tree on the same database; its output."""
        command = [sys.executable, "-m", "scorekeeper.web.cli", *words, "--db", str(self.db)]
        done = subprocess.run(command, cwd=self.tree, env=self.environ, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"scorekeeper {' '.join(words)}: {done.stderr[-2000:]}")
        return done.stdout

    def start(self, tries: int = 5) -> Served:
        """Start the server and wait until it answers; on another port if its port was taken meanwhile."""
        with self.log.open("ab") as log:  # a file, not a pipe nobody reads: a full pipe would stall it
            self.process = subprocess.Popen(
                self.command(),
                cwd=self.tree,
                env=self.environ,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = self.log.read_text()[-2000:]
                if tries > 1 and "in use" in said:  # another process took the free port first
                    self.port = free_port()
                    return self.start(tries - 1)
                raise RuntimeError(f"{self.kind} exited: {said}")
            if self._answers():
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.kind} did not start")

    def _answers(self) -> bool:
        """Whether the server answers an HTTP request (any status): its app is loaded."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
                conn.sendall(b"GET /offline HTTP/1.0\r\nHost: bench\r\n\r\n")
                return conn.recv(12).startswith(b"HTTP/")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)

    def pids(self) -> list[int]:
        """The server's process and every process under it."""
        assert self.process is not None
        children, found = _children(), [self.process.pid]
        for pid in found:  # grows as it goes: breadth first
            found += children.get(pid, [])
        return found

    def cpu_seconds(self) -> float:
        """CPU the server has used so far: its processes, and those under it that have exited."""
        assert self.process is not None
        total = sum(int(x) for x in _stat(self.process.pid)[13:15])  # cutime, cstime
        for pid in self.pids():
            try:
                total += sum(int(x) for x in _stat(pid)[11:13])  # utime, stime
            except OSError:
                continue
        return total / TICK

    def rss_mb(self) -> float:
        """The resident set of the server's processes together, in MB."""
        total = 0.0
        for pid in self.pids():
            try:
                for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
            except OSError:
                continue
        return total

    def wal_mb(self) -> float:
        wal = self.db.with_name(self.db.name + "-wal")
        return wal.stat().st_size / 2**20 if wal.exists() else 0.0


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


def raise_file_limit() -> None:
    """A socket per phone (four per table, five with a stream), and an attack's thousands."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def min_median(values: list[float], digits: int = 1) -> str:
    """``min/median`` of a figure's runs."""
    if not values:
        return "-"
    return f"{min(values):.{digits}f}/{statistics.median(values):.{digits}f}"


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted values (nearest rank), or nan for none."""
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def ms(values: list[float], q: float) -> float:
    """The ``q`` quantile of latencies in seconds, in ms."""
    return percentile(sorted(values), q) * 1e3


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}"
