"""The board: positions and facings from state files, the geometry built-ins, effects in
order (then, let, for each) and the effects log that cites each change's section."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from conftest import TESTS, assert_located, assert_no_traceback, run_cli
from drillbook.geometry import Board, Distance, bearing

HEX = str(TESTS / "good" / "board_hex.drill")
TABLE = str(TESTS / "good" / "board_table.drill")
LAYOUTS = ["axial", "columns-odd", "columns-even", "rows-odd", "rows-even"]


def _state(tmp_path: Path, text: str) -> str:
    p = tmp_path / "state.yaml"
    p.write_text(text, encoding="utf-8")
    return str(p)


# ------------------------------------------------------------------ geometry, exactly
@pytest.mark.parametrize("layout", LAYOUTS)
@given(col=st.integers(-40, 40), row=st.integers(-40, 40))
def test_printed_coordinates_round_trip(layout, col, row):
    board = Board("hex", layout)
    assert board.printed(board.position(col, row)) == (col, row)


@pytest.mark.parametrize("layout", LAYOUTS)
@given(col=st.integers(-20, 20), row=st.integers(-20, 20), n=st.integers(1, 4))
def test_neighbours_and_rings(layout, col, row, n):
    board = Board("hex", layout)
    h = board.position(col, row)
    assert all(board.distance(h, x) == 1 for x in board.neighbours(h))
    ring = board.within(h, n)
    assert len(ring) == len(set(ring)) == 3 * n * (n + 1)
    assert all(1 <= board.distance(h, x) <= n for x in ring)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_neighbours_lie_clockwise_at_hexside_directions(layout):
    board = Board("hex", layout)
    h = board.position(10, 10)
    first = 0 if board.flat else 30
    assert [board.direction(h, x) for x in board.neighbours(h)] == \
        [first + 60 * i for i in range(6)]
    for i, x in enumerate(board.neighbours(h)):
        step = board.hexside_step(first + 60 * i)
        assert (h.q + step[0], h.r + step[1]) == (x.q, x.r)
    assert board.hexside_step(first + 30) is None        # a vertex


def test_odd_columns_are_lower_on_a_columns_odd_map():
    board = Board("hex", "columns-odd")
    # column 3 sits half a hex lower than column 2: 0202's north-east neighbour is 0301,
    # its south-east one 0302; from odd column 3, 0302's north-east one is 0402
    h = board.position(2, 2)
    ne, se = board.neighbours(h)[1], board.neighbours(h)[2]
    assert board.printed(ne) == (3, 1) and board.printed(se) == (3, 2)
    assert board.printed(board.neighbours(board.position(3, 2))[1]) == (4, 2)
    assert repr(h) == "0202"


def test_line_is_straight_and_includes_both_ends():
    board = Board("hex", "columns-odd")
    a, b = board.position(10, 12), board.position(10, 8)
    hexes = board.line(a, b)
    assert hexes[0] == a and hexes[-1] == b and len(hexes) == 5
    assert all(board.distance(x, y) == 1 for x, y in zip(hexes, hexes[1:]))


def test_table_distances_are_exact():
    board = Board("table", "cm")
    a, b, c = board.position(0, 0), board.position(3, 4), board.position(Fraction(7, 2), 4)
    assert board.distance(a, b) == 5 and board.distance(a, b) <= 5 and not board.distance(a, b) < 5
    assert board.distance(a, c) > 5 and board.distance(a, b) < board.distance(a, c)
    assert 5 >= board.distance(a, b) and board.distance(a, b) > -1
    assert repr(board.distance(a, c)) == "≈5.32 cm" and repr(board.distance(a, b)) == "5 cm"
    assert repr(board.distance(a, board.position(Fraction(5, 2), 0))) == "2.5 cm"
    assert isinstance(board.distance(a, b), Distance)


def test_bearing_is_relative_to_facing():
    board = Board("table", "cm")
    me = board.position(0, 0)
    assert bearing(board, me, 0, board.position(0, 10)) == 0          # dead ahead (north)
    assert bearing(board, me, 0, board.position(10, 0)) == 90         # to the right
    assert bearing(board, me, 90, board.position(0, 10)) == -90       # to the left
    assert bearing(board, me, 0, board.position(0, -10)) == 180       # behind
    assert bearing(board, me, 0, me) is None


# ------------------------------------------------------------------ state files
def test_state_file_positions_and_facings(tmp_path):
    state = _state(tmp_path, "Unit:\n  pikes: {at: \"1012\", facing: 0}\n"
                   "  horse: {at: [10, 12]}\n  enemy: {at: [10, 11], side: Red}\n")
    r = run_cli("ask", HEX, "stacked_with(pikes, horse) and enemy_adjacent(pikes)",
                "--state", state)
    assert r.rc == 0 and r.out.strip() == "yes", r.out + r.err
    r = run_cli("ask", HEX, "sector(pikes, enemy)", "--state", state)
    assert r.out.strip() == "Front"
    r = run_cli("ask", HEX, "enemy.at", "--state", state)
    assert r.out.strip() == "1011"


def test_enemy_adjacency_changes_with_the_enemys_morale(tmp_path):
    base = "Unit:\n  pikes: {at: [10, 12], facing: 0}\n  enemy: {at: [10, 11], side: Red%s}\n"
    yes = run_cli("ask", HEX, "enemy_adjacent(pikes)", "--state", _state(tmp_path, base % ""))
    broken = tmp_path / "b"
    broken.mkdir()
    no = run_cli("ask", HEX, "enemy_adjacent(pikes)", "--state",
                 _state(broken, base % ", morale: Broken"))
    assert (yes.out.strip(), no.out.strip()) == ("yes", "no")


@pytest.mark.parametrize("value, message", [
    ("at: [10]", "a position is two numbers"),
    ("at: [10.5, 3]", "whole numbers"),
    ("at: oak", "a position is two numbers"),
    ("at: [1, 1], facing: 45", "a multiple of 30 degrees, not 45"),
    ("at: [1, 1], facing: 400", "0..359"),
])
def test_bad_positions_in_state_files_are_located(tmp_path, value, message):
    state = _state(tmp_path, "Unit:\n  u: {%s}\n" % value)
    r = run_cli("ask", HEX, "u.hits", "--state", state)
    assert message in r.err, r.err
    d = assert_located(r, "E707", message)
    assert d.path.endswith("state.yaml") and d.line == 2


def test_table_positions_take_decimals(tmp_path):
    state = _state(tmp_path, "Unit:\n  w: {at: [10, 10]}\n  near: {at: [13.0, 14]}\n"
                   "  close: {at: [10, 5.5]}\n  far: {at: [10, 4.9]}\n")
    r = run_cli("ask", TABLE, "[within(w, close, 5), within(w, far, 5)]", "--state", state)
    assert r.out.strip() == "[yes, no]", r.out + r.err


# ------------------------------------------------------------------ effects in order
def test_explosion_lists_every_unit_within_5cm_with_its_section(tmp_path):
    state = _state(tmp_path, "Unit:\n  w: {at: [10, 10]}\n  near: {at: [13, 14]}\n"
                   "  close: {at: [10, 6]}\n  far: {at: [20, 20]}\n")
    r = run_cli("explain", TABLE, "explosion(w)", "--state", state)
    assert r.rc == 0, r.err
    log = r.out.split("Effects on the game state, in order:")[1]
    assert "near.strength: 3 → 2 (§2 Measures)" in log
    assert "close.strength: 3 → 2 (§2 Measures)" in log
    assert "far.strength" not in log
    r = run_cli("ask", TABLE, "explosion(w)", "--state", state, "--json")
    import json
    cited = json.loads(r.out)["effects_cited"]
    assert [c["section"] for c in cited] == ["2", "2", "2"]


def test_geometry_errors_at_run_time_are_located(tmp_path):
    state = _state(tmp_path, "Unit:\n  u: {at: [1, 1], facing: 30}\n")
    cases = [("hexes_within(u.at, 21)", "E616"), ("step(u.at, u.facing, 1)", "E617"),
             ("direction(u.at, u.at)", "E618")]
    for question, code in cases:
        r = run_cli("ask", HEX, question, "--state", state)
        assert r.rc != 0 and f"error[{code}]" in r.err, (question, r.err)
        assert_no_traceback(r)


def test_then_sees_the_state_the_first_leaves_and_a_list_does_not(tmp_path):
    state = _state(tmp_path, "Unit:\n  u: {at: [1, 1], hits: 2}\n")
    r = run_cli("ask", HEX, "after (add 1 to u.hits then if u.hits >= 3 then set u.morale to "
                "Shaken else nothing): u.morale", "--state", state)
    assert r.out.strip() == "Shaken", r.err
    r = run_cli("ask", HEX, "after (let h = u.hits: add 1 to u.hits then if h >= 3 then "
                "set u.morale to Shaken else nothing): u.morale", "--state", state)
    assert r.out.strip() == "Normal", r.err


def test_a_question_with_a_list_that_reads_an_earlier_write_is_refused(tmp_path):
    state = _state(tmp_path, "Unit:\n  u: {at: [1, 1], hits: 2}\n")
    r = run_cli("ask", HEX, "[add 1 to u.hits, if u.hits >= 3 then set u.morale to Shaken "
                "else nothing]", "--state", state)
    assert r.rc != 0 and "E320" in r.err, r.out + r.err


# ------------------------------------------------------------------ what a facing may be
FACES = str(TESTS / "good" / "board_faces.drill")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("faces", [None, "vertices", "hexsides"])
def test_the_facings_a_board_allows(layout, faces):
    board = Board("hex", layout, None, faces)
    allowed = board.facings()
    for n in range(-30, 400):
        ok = board.facing_problem(n) is None
        assert ok == (n in allowed), (layout, faces, n)
        # a direction (a Direction field) is any hexside or vertex, whatever the counters face
        assert (board.facing_problem(n, counter=False) is None) == (0 <= n < 360 and n % 30 == 0)
        if ok and faces:
            assert (board.hexside_step(n) is not None) == (faces == "hexsides")
    assert len(allowed) == (12 if faces is None else 6)
    table = Board("table", "cm")
    assert table.facings() is None and table.facing_problem(17) is None
    assert "0..359" in table.facing_problem(360)


def test_a_state_file_facing_a_hexside_on_a_vertex_map_is_located(tmp_path):
    state = _state(tmp_path, "Side:\n  s: {home: 0}\n"
                             "Unit:\n  u: {side: s, at: [4, 4], facing: 60}\n")
    res = run_cli("ask", FACES, "sector(u, position(4, 3))", "--state", state)
    assert_located(res, "E707", "u.facing: on this map a unit faces a hex vertex "
                   "(30, 90, 150, 210, 270, 330); 60 points at a hexside", rc=1,
                   path=state, line=4, col=36)
    # home is a Direction: any direction of the map, a hexside included, is one
    ok = _state(tmp_path, "Side:\n  s: {home: 0}\nUnit:\n  u: {side: s, at: [4, 4], facing: 90}\n")
    res = run_cli("ask", FACES, "sector(u, position(5, 4))", "--state", ok)
    assert res.rc == 0 and res.out.strip() == "Front", res.err


def test_an_effect_that_turns_a_unit_to_a_hexside_is_refused(tmp_path):
    state = _state(tmp_path, "Side:\n  s: {home: 0}\nUnit:\n  u: {side: s, at: [4, 4], facing: 30}\n")
    res = run_cli("ask", FACES, "face_home(u)", "--state", state)
    assert_located(res, "E602", "u.facing would become 0: on this map a unit faces a hex vertex",
                   rc=1, line=23, col=7)
    res = run_cli("ask", FACES, "about_face(u)", "--state", state)
    assert res.rc == 0 and "u.facing: 30 → 210" in res.out, res.out + res.err
