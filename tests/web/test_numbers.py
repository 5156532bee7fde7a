"""TRUST.md I6 (issue 12, item 3): every number typed or carried by a file has a range; past it, a 4xx
naming the field and the range, never a 500, and nothing stored."""

from __future__ import annotations

import json

import pytest
from trusttools import fingerprint

HUGE = [10**30, 2**63, -(2**63) - 1]


def match_file(rules=None, events=()):
    return json.dumps(
        {
            "format": "chicago-match/1",
            "players": ["Anna", "Bo"],
            "rules": rules or {},
            "events": [{"type": "dealer", "player": "Anna"}, *events],
        }
    )


IMPORTS = [
    *[(match_file({"points": {"pair": v}}), "points.pair", "0 to 1000") for v in HUGE],
    *[(match_file({"target": v}), "target", "1 to 1000") for v in (*HUGE, 0)],
    *[
        (match_file({key: 1001}), key, "0 to 1000")
        for key in ("last_trick", "chicago", "chicago_min", "no_exchange_at")
    ],
    *[
        (
            match_file(events=[{"type": "adjust", "player": "Bo", "points": v, "reason": ""}]),
            "points",
            "-1000 to 1000",
        )
        for v in (*HUGE, 1001, -1001)
    ],
    (match_file(events=[{"type": "exchange", "player": "Bo", "count": 10**30}]), "count", "0 to 5"),
]


@pytest.mark.parametrize(
    ("text", "field", "bounds"), IMPORTS, ids=[f"{f}-{i}" for i, (_, f, _) in enumerate(IMPORTS)]
)
def test_an_imported_number_out_of_its_range_is_refused_naming_the_field(app, client, text, field, bounds):
    before = fingerprint(app)
    response = client.post("/import", data={"text": text})
    assert response.status_code == 422
    assert f"&#39;{field}&#39; must be a whole number from {bounds}" in response.text
    assert fingerprint(app) == before
