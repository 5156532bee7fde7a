"""``scorekeeper`` as it was before the unchanged check answered before Flask: every poll through Flask.

Only for bench/polls.py, which measures an unchanged live-view check with and
without the layer in the same run. Run: python bench/without_unchanged_check.py serve --port 8003 --db FILE
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from scorekeeper.web import unchanged  # noqa: E402

unchanged.init_app = lambda app: None  # create_app looks it up when it builds the app

from scorekeeper.web.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
