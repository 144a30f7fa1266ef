"""ConceptClass: construction, validation with clear messages, packed bitsets, canonical form."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from theory.online import ConceptClass

W_ROWS = ["0000", "1000", "0100", "0001", "1101", "0011", "1011", "1111"]


def test_constructors_agree():
    a = ConceptClass.from_strings(W_ROWS)
    b = ConceptClass.from_array([[int(c) for c in r] for r in W_ROWS])
    assert np.array_equal(a.matrix, b.matrix)
    assert a.rows() == W_ROWS
    assert (a.n_hypotheses, a.n_points, a.n_words) == (8, 4, 1)
    assert a.points == ("0", "1", "2", "3")


@given(
    st.integers(1, 40).flatmap(
        lambda m: st.tuples(
            st.lists(st.lists(st.integers(0, 1), min_size=m, max_size=m), min_size=1),
            st.one_of(st.none(), st.lists(st.text(), min_size=m, max_size=m)),
        )
    )
)
def test_repr_is_python_that_rebuilds_the_class(rows_points):
    rows, points = rows_points
    H = ConceptClass.from_array(rows, points)
    assert eval(repr(H), {"ConceptClass": ConceptClass}) == H  # the round trip


def test_repr_writes_out_every_row_of_a_large_class():
    """numpy summarises arrays over 1,000 entries with "..."; the repr never does."""
    rng = np.random.default_rng(0)
    H = ConceptClass.from_array(rng.integers(0, 2, size=(600, 30)))
    text = repr(H)
    assert "..." not in text
    assert text.startswith("ConceptClass.from_array([[")
    assert eval(text, {"ConceptClass": ConceptClass}) == H  # the round trip
    assert repr(ConceptClass.from_strings(["01", "11"], points="ab")) == (
        "ConceptClass.from_array([[0, 1], [1, 1]], points=['a', 'b'])"
    )


def test_equality_and_hash_compare_points_and_rows_in_order():
    a = ConceptClass.from_strings(W_ROWS)
    assert a == ConceptClass.from_strings(list(W_ROWS))
    assert hash(a) == hash(ConceptClass.from_strings(list(W_ROWS)))
    assert a != ConceptClass.from_strings(W_ROWS[::-1])
    assert a != ConceptClass.from_strings(W_ROWS, points="abcd")
    assert ConceptClass.from_strings(["0"]) != ConceptClass.from_strings(["00"])
    assert a != W_ROWS


def test_text_and_json_files(tmp_path):
    text = tmp_path / "w.txt"
    text.write_text("# the gadget W\n" + "\n".join(W_ROWS) + "\n\n")
    plain = tmp_path / "w.json"
    plain.write_text(json.dumps([[int(c) for c in r] for r in W_ROWS]))
    labelled = tmp_path / "wl.json"
    labelled.write_text(
        json.dumps({"hypotheses": [[int(c) for c in r] for r in W_ROWS], "points": list("abcd")})
    )
    for path in (text, plain, labelled):
        assert ConceptClass.from_file(path).rows() == W_ROWS
    assert ConceptClass.from_file(labelled).points == ("a", "b", "c", "d")


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ("0101\n0121\n", ".txt", r"line 2: '2' is not 0 or 1"),
        ("0101\n011\n", ".txt", r"line 2: has 3 points, the first row has 4"),
        ("# only a comment\n", ".txt", "class is empty"),
        ("[[0, 1], [1, 2]]", ".json", "hypothesis 2: entry 2 is not 0 or 1"),
        ("[[0, 1], [1]]", ".json", "hypothesis 2: has 1 points"),
        ("{not json", ".json", "line 1: not valid JSON"),
        ('{"a": 1}', ".json", "must be a list of lists"),
    ],
)
def test_malformed_files_name_the_line_and_the_problem(tmp_path, content, suffix, message):
    path = tmp_path / f"bad{suffix}"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        ConceptClass.from_file(path)


def test_array_validation():
    with pytest.raises(ValueError, match=r"entry \[0, 1\] is 2"):
        ConceptClass.from_array([[0, 2]])
    with pytest.raises(ValueError, match="ragged"):
        ConceptClass.from_array([[0, 1], [1]])
    with pytest.raises(ValueError, match="empty"):
        ConceptClass.from_array(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="2-D"):
        ConceptClass.from_array([0, 1])
    with pytest.raises(ValueError, match="does not exist"):
        ConceptClass.from_file("no/such/file.txt")


@given(st.integers(1, 200), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_packed_bitsets_match_the_matrix(n_hyp, n_points, seed):
    matrix = np.random.default_rng(seed).integers(0, 2, size=(n_hyp, n_points))
    H = ConceptClass.from_array(matrix)
    assert H.n_words == -(-n_hyp // 64)
    for x in range(n_points):
        unpacked = [(int(H.point_bits[x, i // 64]) >> (i % 64)) & 1 for i in range(n_hyp)]
        assert unpacked == matrix[:, x].tolist()
    assert sum(int(w).bit_count() for w in H.full) == n_hyp


def test_canonical_drops_constant_and_merges_repeated_and_complementary_columns():
    base = np.array([[int(c) for c in r] for r in W_ROWS], dtype=np.uint8)
    wide = np.column_stack(
        [np.ones(8), base[:, 0], 1 - base[:, 0], base[:, 1:], base[:, 3]]
    ).astype(int)
    H = ConceptClass.from_array(np.vstack([wide, wide[:2]]), points=list("pqrstuv"))
    canon, keep = H.canonical()
    assert keep.tolist() == [1, 3, 4, 5]
    assert canon.points == ("q", "s", "t", "u")
    assert canon.n_hypotheses == 8
    assert sorted(canon.rows()) == sorted(W_ROWS)
