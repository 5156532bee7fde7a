"""TRUST.md I7 under gevent: long work runs off the hub, in the request's context; elsewhere it runs inline.

The gevent case runs in a child process: gevent's monkey-patching cannot be undone in this one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest
from flask import current_app, request

from scorekeeper.web.offload import offload

# In a patched process: a request offloads 0.3 s of CPU while a greenlet ticks every 10 ms.
GEVENT_CHILD = """
from gevent import monkey
monkey.patch_all()
import json, sys, tempfile, time, gevent
from flask import Flask, current_app, request
from scorekeeper.web import db
from scorekeeper.web.offload import offload

real_ident = monkey.get_original("_thread", "get_ident")
app = Flask("offloaded")
app.config["DATABASE"] = tempfile.mkdtemp() + "/offload.sqlite"
db.connect(app.config["DATABASE"]).close()
ticks = []

def tick():
    while True:
        ticks.append(time.perf_counter())
        gevent.sleep(0.01)

def compute(seconds):
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        sum(range(1000))
    return {"app": current_app.name, "path": request.path, "thread": real_ident()}

def refuse():
    raise LookupError("refused in the pool")

ticker = gevent.spawn(tick)
gevent.sleep(0.02)
with app.test_request_context("/import"):
    start = time.perf_counter()
    seen = offload(compute, 0.3)
    end = time.perf_counter()
    try:
        offload(refuse)
        raised = None
    except LookupError as error:
        raised = str(error)
    with db.immediate(db.get_db()):
        in_transaction = offload(real_ident)
ticker.kill()
gaps = [b - a for a, b in zip(ticks, ticks[1:]) if start <= a <= end]
print(json.dumps({**seen, "hub_thread": real_ident(), "longest_gap": max(gaps), "raised": raised,
                  "in_transaction": in_transaction}))
"""


def test_without_gevent_the_work_runs_inline_in_the_requests_context(app):
    with app.test_request_context("/import"):
        seen = offload(lambda x: (x, current_app.name, request.path, threading.get_ident()), 7)
        assert seen == (7, app.name, "/import", threading.get_ident())
        with pytest.raises(LookupError):
            offload(lambda: {}["missing"])


def test_under_gevent_the_work_runs_in_another_thread_and_the_hub_keeps_serving():
    child = subprocess.run([sys.executable, "-c", GEVENT_CHILD], capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    seen = json.loads(child.stdout)
    assert seen["thread"] != seen["hub_thread"]  # not on the hub's thread
    assert (seen["app"], seen["path"]) == ("offloaded", "/import")  # the request's context went along
    assert seen["raised"] == "refused in the pool"
    assert seen["in_transaction"] == seen["hub_thread"]  # a transaction is never left waiting
    # The ticking greenlet kept its 10 ms beat (give or take the GIL's turns) through 0.3 s of CPU.
    assert seen["longest_gap"] < 0.1, seen
