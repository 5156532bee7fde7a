"""TRUST.md W1 (identical concurrent posts), L1 (a bounded soak) and S9 (no secret in the access log).

Against `scorekeeper serve` on 127.0.0.1; bounded in count and time.
"""

from __future__ import annotations

import http.client
import re
import sqlite3
import statistics
import threading
import time

import pytest
from servertools import Keeper, Server

pytestmark = pytest.mark.slow


TRIALS = 200  # TRUST.md W1: 200 taps, each posted by 8 phones at once


def test_eight_identical_concurrent_posts_record_once_and_answer_alike(tmp_path):
    server = Server(tmp_path / "w1.sqlite", threads=4).start()
    try:
        keeper = Keeper(server.port, seed=1)
        phones = [keeper.clone() for _ in range(8)]
        for trial in range(TRIALS):
            path, body = keeper.tap_form()
            barrier = threading.Barrier(8)
            replies: list[tuple[int, str | None]] = [(0, None)] * 8

            def send(i: int, path=path, body=body, barrier=barrier, replies=replies) -> None:
                barrier.wait()
                # The acknowledgement only (as kill -9's taps): the same key check, version check and
                # write, without 1,600 tables rendered (a repeated key's table: test_trust_properties).
                response, _ = phones[i].post(path, body, minimal=True)
                replies[i] = (response.status, response.getheader("X-Event-Seq"))

            threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert {status for status, _ in replies} == {204}, (trial, replies)
            # One seq for all eight: a second event would have taken the next one. (And the next trial,
            # at the next version, would be refused as stale.)
            assert {seq for _, seq in replies} == {str(keeper.version)}, (trial, replies)
            keeper.version += 1
        assert keeper.version_now() == TRIALS  # exactly one event per trial
        for phone in [keeper, *phones]:
            phone.close()
    finally:
        server.stop()


def _spectators(port: int, watch: str, count: int, until: float, out) -> None:
    """``count`` spectators, each polling every 0.5 s until ``until`` (wall clock).

    A thread and a keep-alive connection per phone, all in a process of their own (120 polls a
    second cost it a few percent of a core): the latencies measured are the server's, and the
    scorekeeper's taps do not wait on the spectators' side.
    """
    reads: list[float] = []
    errors: list[str] = []

    def spectator(offset: float) -> None:
        time.sleep(offset)  # phones do not poll in step
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        version = 0
        while time.time() < until:
            start = time.perf_counter()
            try:
                conn.request(
                    "GET",
                    f"/watch/board?t={watch}",
                    headers={"HX-Request": "true", "If-None-Match": f'"v{version}"'},
                )
                response = conn.getresponse()
                body = response.read()
                reads.append(time.perf_counter() - start)
                if response.status == 200:  # the version the board's own hx-headers will send
                    version = int(re.search(rb"If-None-Match[^v]*v(\d+)", body).group(1))
                elif response.status != 304:
                    errors.append(f"poll {response.status}")
            except Exception as error:  # noqa: BLE001 - every failure is counted
                errors.append(repr(error))
                conn.close()
            time.sleep(max(0.0, 0.5 - (time.perf_counter() - start)))
        conn.close()

    phones = [threading.Thread(target=spectator, args=(i * 0.5 / count,)) for i in range(count)]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.join()
    out.put((reads, errors))


def test_a_soak_of_60_spectators_and_a_scorekeeper(tmp_path):
    import multiprocessing

    log = tmp_path / "access.log"
    server = Server(tmp_path / "soak.sqlite", access_log=log).start()
    writes: list[float] = []
    errors: list[str] = []
    reads: list[float] = []
    try:
        keeper = Keeper(server.port, seed=2)
        secrets_seen = {keeper.watch, keeper.cookie.split("=", 1)[1]}
        keeper.version_now()  # the table's templates are compiled once before the clock starts
        until = time.time() + 20
        spawn = multiprocessing.get_context("spawn")
        results = spawn.Queue()
        spectators = spawn.Process(target=_spectators, args=(server.port, keeper.watch, 60, until, results))
        spectators.start()
        while time.time() < until:
            start = time.perf_counter()
            path, body = keeper.tap_form()
            response, _ = keeper.post(path, body)
            writes.append(time.perf_counter() - start)
            if response.status != 200:
                errors.append(f"write {response.status}")
            keeper.version += 1
            time.sleep(max(0.0, 0.1 - (time.perf_counter() - start)))
        reads, failed = results.get(timeout=60)
        errors += failed
        spectators.join(timeout=30)
        stored = keeper.version_now()
        keeper.close()
    finally:
        server.stop()
    assert errors == []
    p95 = lambda xs: statistics.quantiles(xs, n=20)[-1] * 1e3  # noqa: E731
    print(
        f"\nsoak: {len(reads)} polls, {len(writes)} writes; read p95 {p95(reads):.1f} ms, write p95 {p95(writes):.1f} ms"
    )
    conn = sqlite3.connect(tmp_path / "soak.sqlite")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    text = log.read_text()
    assert "/watch/board" in text  # the log is written ...
    assert not any(secret in text for secret in secrets_seen)  # ... without a secret (S9)
    # TRUST.md L1: 0 errors, nothing lost, none waits over a second; its p95 (50 ms on a quiet machine)
    # is printed above and by bench/capacity.py, never asserted: a busy machine must not fail a good
    # change, and neither must a count of requests that a slower machine makes fewer of.
    assert stored == keeper.version == len(writes)  # every acknowledged write is in the match
    assert len(reads) >= 60  # the spectators' polls were answered (at any speed, one each at least)
    assert max(writes) < 1.0
