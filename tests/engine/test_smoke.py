from protocol.engine import Options, legal_actions, new_match


def test_a_seeded_match_finishes() -> None:
    match = new_match(Options(seats=3), seed="smoke")
    steps = 0
    while match.phase != "finished":
        match = (
            match.next_hand()
            if match.phase == "hand_over"
            else match.apply(legal_actions(match.position)[0])
        )
        steps += 1
    assert max(match.totals) >= 25
    assert steps > 10
