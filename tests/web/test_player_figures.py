"""Issue 25, item 7: a player's share of matches won counts finished matches only, and says so."""

import json

from test_imported_matches import import_text, imported_id, timed
from webtools import recorded, soup

from scorekeeper.web.store import stats


def test_a_players_share_of_wins_counts_finished_matches_only(keeper, client, app):
    """Anna: two finished matches (one won) and one under way: 1 of 2, 50%, and the third said apart."""
    imported_id(import_text(client, json.dumps(timed("tie-break-to-ten", 0))))  # Bo wins
    won = recorded("tie-break-to-ten")
    won["players"] = ["Bo", "Anna"]  # the same play, seats swapped: Anna wins
    for event in won["events"]:
        for key in ("player", "winner"):
            if event.get(key) in ("Anna", "Bo"):
                event[key] = {"Anna": "Bo", "Bo": "Anna"}[event[key]]
    imported_id(import_text(client, json.dumps(won)))
    keeper.new("Anna", "Bo", dealer="Anna")  # under way
    with app.app_context():
        anna = stats.person_id_of("Anna")
    figures = soup(client.get(f"/players/{anna}")).select_one("dl.figures")
    said = {div.dt.text: " ".join(div.dd.stripped_strings) for div in figures.select("div")}
    assert said["Matches"] == "3 (1 in progress)"
    assert said["Won"] == "1 of 2 finished matches (50%)"
