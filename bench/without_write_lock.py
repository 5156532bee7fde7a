"""``scorekeeper`` as it was before the write lock: writers queue in SQLite's busy handler alone.

Only for bench/capacity.py, which measures a tap's p99 with and without the lock in
the same run. Run: python bench/without_write_lock.py serve --port 8002 --db FILE
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from scorekeeper.web import db  # noqa: E402

db.write_lock = lambda _db: contextlib.nullcontext()  # immediate() looks it up at each write

from scorekeeper.web.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
