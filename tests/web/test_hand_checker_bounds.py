"""The hand checker reads a hand's worth of what it is given (TRUST.md I8: no phone's huge query
costs the others' taps)."""

from __future__ import annotations


def test_a_hand_of_thousands_of_cards_is_answered_as_a_hand_of_a_few_and_stays_small(client):
    huge = "+".join(["As", "Kd", "7c", "Qh", "2s"] * 4000)
    response = client.get(f"/hands?hand1={huge}&hand2={huge}" + "&pick3=Ah" * 5000)
    assert response.status_code == 422
    assert "A hand is five cards, not" in response.text
    assert len(response.data) < 3 * len(client.get("/hands").data)
