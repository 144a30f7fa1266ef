"""One strict reader: every number the command line reads, from an argument or
an input file, is written in ASCII decimal notation; no JSON object repeats a key; no JSON
boolean stands for a number; a label that is printed is one line and, where it names a point,
unique. Every refusal is one line, exit 2, naming the argument (and the file and line or row).

The examples of the hostile round are explicit cases; the hypothesis tests draw integers written
with underscores, spaces or the digits of other scripts for every integer option."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paper_checks._inputs import ascii_float, ascii_int, check_labels, loads_strict
from tests.paper_checks.test_cli_fuzz import assert_one_line_exit_2

FUZZING = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
SETTINGS = settings(
    deadline=None,
    max_examples=settings.default.max_examples if FUZZING else 40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

#: Decimal digits of scripts other than ASCII (Arabic-Indic, Devanagari, fullwidth, ...).
OTHER_DIGITS = "٠١٢٣٤٥٦٧٨٩۰۱۲३४५０１２"


@st.composite
def kind_integers(draw) -> str:
    """An integer Python's ``int`` reads but that is not written in plain ASCII digits."""
    value = str(draw(st.integers(1, 10**6)))
    how = draw(st.sampled_from(["underscore", "script", "space"]))
    if how == "underscore" and len(value) > 1:
        cut = draw(st.integers(1, len(value) - 1))
        return f"{value[:cut]}_{value[cut:]}"
    if how == "script" or how == "underscore":
        i = draw(st.integers(0, len(value) - 1))
        digit = draw(st.sampled_from([d for d in OTHER_DIGITS if int(d) == int(value[i])]))
        return value[:i] + digit + value[i + 1 :]
    return draw(st.sampled_from([f" {value}", f"{value} ", f"{value}\n"]))


@SETTINGS
@given(text=kind_integers())
def test_python_reads_it_the_strict_reader_does_not(text):
    int(text)  # the reading the hostile round found too kind
    with pytest.raises(ValueError, match="ASCII"):
        ascii_int(text)
    with pytest.raises(ValueError, match="ASCII"):
        ascii_float(text)


@pytest.mark.parametrize("text", ["0", "7", "-3", "+12", "1000000"])
def test_plain_integers_are_read(text):
    assert ascii_int(text) == int(text)
    assert ascii_float(text) == float(text)


@pytest.mark.parametrize("text", ["nan", "inf", "-Infinity", "1e999", "1_0.5", "٣.5", ".", ""])
def test_numbers_outside_ascii_decimal_notation_are_refused(text):
    with pytest.raises(ValueError, match=r"ASCII|range"):
        ascii_float(text)


#: Every integer option of the command line, with the rest of a command that would run.
INTEGER_OPTIONS = [
    ["run", "online.invariances", "--dry-run", "--seed"],
    ["run", "online.invariances", "--dry-run", "--workers"],
    ["run", "online.invariances", "--dry-run", "--replicates"],
    ["solve", "passk", "--samples", "S.csv", "--k-max"],
    ["solve", "passk", "--samples", "S.csv", "--k"],
    ["solve", "passk", "--samples", "S.csv", "--n-boot"],
    ["solve", "online", "--class", "C.txt", "--max-n"],
    ["solve", "rmt", "--psi-p", "1", "--psi-n", "1", "--t", "1", "--grid"],
    ["solve", "superposition", "--n", "20", "--m", "4", "--steps"],
    ["solve", "superposition", "--m", "4", "--n"],
    ["solve", "superposition", "--n", "20", "--m"],
    ["bench", "--conjectures"],
]


@SETTINGS
@given(option=st.sampled_from(INTEGER_OPTIONS), text=kind_integers())
def test_every_integer_option_refuses_kind_integers(tmp_path, option, text):
    """`--m 1_0,2,٣` was read as 10, 2, 3: every integer option now refuses such text, in one
    line naming the option, before any file is read."""
    line = assert_one_line_exit_2([*option, text])
    assert option[-1] in line


@pytest.mark.parametrize(
    "option",
    [
        ["solve", "rmt", "--psi-n", "1", "--t", "1", "--psi-p"],
        ["solve", "passk", "--samples", "S.csv", "--ci"],
        ["solve", "superposition", "--n", "20", "--m", "4", "--alpha"],
        ["solve", "online", "--class", "C.txt", "--time-limit"],
    ],
)
@pytest.mark.parametrize("text", ["0_5", "٠.5", "nan", "inf", " 1"])
def test_every_number_option_refuses_kind_numbers(option, text):
    line = assert_one_line_exit_2([*option, text])
    assert option[-1] in line


@pytest.mark.parametrize(
    "address", ["tcp://127.0.0.1:abc", "tcp://127.0.0.1:", "tcp://:8786", "tcp://h:0", "tcp://h:١"]
)
def test_a_scheduler_address_without_a_port_names_scheduler(address):
    line = assert_one_line_exit_2(["run", "online.invariances", "--scheduler", address])
    assert "--scheduler" in line


def test_a_repeated_key_is_refused_by_every_json_reader():
    with pytest.raises(ValueError, match="'n' is repeated"):
        loads_strict('{"n": 4, "c": 1, "n": 8}')
    assert loads_strict('{"a": {"n": 1}, "b": {"n": 2}}') == {"a": {"n": 1}, "b": {"n": 2}}


@pytest.mark.parametrize(
    ("name", "content", "needles"),
    [
        ("s.jsonl", '{"n": 4, "c": 1}\n{"n": 4, "c": 1, "n": 8}\n', ["s.jsonl:2", "'n'"]),
        ("s.jsonl", '{"n": true, "c": 0}\n', ["row 1", "n must be an integer"]),
        ("s.jsonl", '{"n": 4, "c": false}\n', ["row 1", "c must be an integer"]),
        ("s.jsonl", '{"n": "1_0", "c": 1}\n', ["row 1", "'1_0'"]),
        ("s.csv", "n,c\n1_000,2\n", ["s.csv row 1", "'1_000'"]),
        ("s.csv", "n,c,N\n4,2,8\n", ["s.csv line 1", "'n' is repeated"]),
        ("s.csv", "n,c\n١٠,2\n", ["s.csv row 1", "'١٠'"]),
        ("s.csv", 'problem,correct\n"a\nb",1\n', ["s.csv", "row 1", "line break"]),
        ("s.jsonl", '{"problem": "p\\u2028q", "correct": 1}\n', ["s.jsonl", "line break"]),
    ],
)
def test_passk_samples_are_read_strictly(tmp_path, name, content, needles):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    line = assert_one_line_exit_2(["solve", "passk", "--samples", path])
    for needle in ["--samples", *needles]:
        assert needle in line


@pytest.mark.parametrize(
    ("doc", "needles"),
    [
        ('{"hypotheses": [[0, 1]], "hypotheses": [[0, 1], [1, 0]]}', ["'hypotheses' is repeated"]),
        ('{"hypotheses": [[true, false], [0, 1]]}', ["hypothesis 1", "True"]),
        ('{"hypotheses": [[0, 1], [1, 0]], "points": ["a", "a"]}', ["point 2", "repeats point 1"]),
        ('{"hypotheses": [[0, 1], [1, 0]], "points": ["a\\nb", "c"]}', ["point 1", "line break"]),
        ('{"hypotheses": [[0, 1], [1, 0]], "points": ["a", "\\u001b[31m"]}', ["point 2"]),
        ('{"hypotheses": [[0, 1], [1, 0]], "points": [1, "1"]}', ["point 2", "repeats"]),
    ],
)
def test_class_files_are_read_strictly(tmp_path, doc, needles):
    """Duplicate keys and booleans were refused by the class-file rule already; labels that
    would print as two lines, or two points of one name, are refused too."""
    path = tmp_path / "c.json"
    path.write_text(doc, encoding="utf-8")
    line = assert_one_line_exit_2(["solve", "online", "--class", path])
    assert "c.json" in line
    for needle in needles:
        assert needle in line


@given(labels=st.lists(st.text(max_size=4), max_size=6))
@SETTINGS
def test_labels_are_refused_exactly_when_they_break_a_line_or_repeat(labels):
    breaks = any(ch in label for label in labels for ch in "\n\r\x00\x1b\u2028\u2029\x85\t")
    printable = all(label.isprintable() for label in labels)
    repeated = len(set(labels)) < len(labels)
    if breaks or repeated:
        with pytest.raises(ValueError, match=r"^--class 'c.json': point \d+: ") as err:
            check_labels(labels, "--class 'c.json'", "point", unique=True)
        assert "\n" not in str(err.value)
    elif printable:
        check_labels(labels, "--class 'c.json'", "point", unique=True)


def test_a_sound_class_with_labels_is_still_solved(tmp_path):
    from tests.paper_checks.test_cli_fuzz import call

    path = tmp_path / "c.json"
    path.write_text(json.dumps({"hypotheses": [[0, 1], [1, 0]], "points": ["x 1", "ü"]}))
    code, out, err = call(["solve", "online", "--class", path])
    assert code == 0, err
    assert "Ldim = 1" in out


def test_a_scheduler_that_cannot_be_reached_names_scheduler(tmp_path):
    pytest.importorskip("distributed")
    line = assert_one_line_exit_2(
        ["run", "faster_rcnn.anchor_count", "--scheduler", "tcp://127.0.0.1:9", "--out", tmp_path]
    )
    assert line.startswith("paper-checks: error: --scheduler tcp://127.0.0.1:9: ")
