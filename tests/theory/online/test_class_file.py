"""The class-file rule (theory/online/class_file.py) that ConceptClass.from_file and
``solve online --class`` share: what ``np.savetxt`` and ``json.dump`` write is read, anything
that is not a plain 0 or 1 is refused in one line naming the file and the line or hypothesis."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paper_checks.solve import load_class
from theory.online import ConceptClass

W = np.array([[int(c) for c in r] for r in ["0000", "1000", "0100", "0001", "1101", "0011"]])


@pytest.mark.parametrize(
    ("fmt", "delimiter"),
    [
        ("%d", " "),
        ("%d", ","),
        ("%d", ", "),
        ("%d", "\t"),
        ("%.18e", " "),
        ("%.18e", ","),
        ("%g", " "),
    ],
)
def test_np_savetxt_files_read_back_in_the_library_and_the_cli(tmp_path, fmt, delimiter):
    path = tmp_path / "w.txt"
    np.savetxt(path, W, fmt=fmt, delimiter=delimiter, header="written by np.savetxt")
    for H in (ConceptClass.from_file(path), load_class(path)):
        np.testing.assert_array_equal(H.matrix, W)


def test_one_column_of_floats_is_one_point_per_row(tmp_path):
    path = tmp_path / "one.txt"
    np.savetxt(path, W[:, :1])  # '%.18e', one number per line
    np.testing.assert_array_equal(ConceptClass.from_file(path).matrix, W[:, :1])


def test_json_floats_zero_and_one_are_read_like_from_array(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"hypotheses": W.astype(float).tolist(), "points": list("abcd")}))
    want = ConceptClass.from_array(W.astype(float), points=list("abcd"))
    for H in (ConceptClass.from_file(path), load_class(path)):
        np.testing.assert_array_equal(H.matrix, want.matrix)
        assert H.points == want.points


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ("0 1 1\n1 2 0\n", ".txt", r"w\.txt: line 2: '2' is not 0 or 1$"),
        ("0,1,1\n1,0.5,0\n", ".txt", r"line 2: '0\.5' is not 0 or 1$"),
        ("0 1\n1 nan\n", ".txt", r"line 2: 'nan' is not 0 or 1$"),
        ("0 1\n1 1_0\n", ".txt", r"line 2: '1_0' is not 0 or 1$"),
        ("0 1\n1 \u0661\n", ".txt", r"line 2: '\u0661' is not 0 or 1$"),  # an Arabic-Indic 1
        ("0 1\n1,,0\n", ".txt", r"line 2: '' is not 0 or 1$"),
        ("0 1 1\n1 0\n", ".txt", r"line 2: has 2 points, the first row has 3$"),
        ("[[0, 1], [true, 0]]", ".json", r"hypothesis 2: entry True is not 0 or 1$"),
        ("[[0, 1], [1, 0.5]]", ".json", r"hypothesis 2: entry 0\.5 is not 0 or 1$"),
        ("[[null]]", ".json", r"hypothesis 1: entry None is not 0 or 1$"),  # null is None
        ('[[0, 1], [1, "1"]]', ".json", r"hypothesis 2: entry '1' is not 0 or 1$"),
        ("[[0, 1], [1, NaN]]", ".json", "not valid JSON"),
        ('{"hypotheses": [[0]], "hypotheses": [[1]]}', ".json", "'hypotheses' is repeated"),
        ('{"hypotheses": [[0]], "points": [true]}', ".json", "'points' must be a list of labels"),
        ("[[0, 1], [1, " + "0" * 40 + "1]]", ".json", "not valid JSON"),
    ],
)
def test_what_is_not_0_or_1_is_refused_in_one_line(tmp_path, content, suffix, message):
    name = "w" + suffix
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    for read in (ConceptClass.from_file, load_class):
        with pytest.raises(ValueError, match=message) as err:
            read(path)
        assert len(str(err.value).splitlines()) == 1
        assert str(path) in str(err.value)
