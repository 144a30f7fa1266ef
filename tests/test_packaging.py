"""The package researchers install and cite: the version written once, LICENSE, CITATION.cff and
CHANGELOG.md, the reference runs shipped as package data, the check that ``theory``, ``sims`` and
``neural`` are this project's, and the wheel installed outside the repository behaving as the
clone does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

import paper_checks
from paper_checks._schema import SAME, SAME_VERDICT
from paper_checks.claims import PAPERS
from paper_checks.reproduce import PACKAGED_REFERENCE, compare, load_reference_run
from paper_checks.reproduce import packaged_reference as cut_reference
from sims._jsonio import dumps
from tools.docs import load_reference, load_references

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: The gadget W of BKM97 (docs/online.md, "Solve your own concept class"): Ldim 3, VC 2, M_tr 2.
GADGET = "0000\n1000\n0100\n0001\n1101\n0011\n1011\n1111\n"


def test_the_version_is_written_once_in_the_package():
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "paper_checks/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", paper_checks.__version__)
    for name in ("CITATION.cff", "CHANGELOG.md", "README.md"):
        assert paper_checks.__version__ not in (ROOT / name).read_text(encoding="utf-8"), name


def test_the_license_is_bsd_3_clause_in_the_file_and_the_metadata():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License")
    assert "the paper-checks developers" in text
    assert PYPROJECT["project"]["license"] == "BSD-3-Clause"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_citation_cff_cites_the_project_and_each_of_the_eight_papers():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert cff["type"] == "software"
    assert cff["title"].startswith("paper-checks")
    assert cff["license"] == PYPROJECT["project"]["license"]
    assert cff["authors"]
    references = cff["references"]
    assert len(references) == len(PAPERS) == 8
    for title in PAPERS.values():  # the registry's short title starts the reference's full one
        (ref,) = [r for r in references if r["title"].startswith(title.rstrip("?"))]
        assert ref["type"] == "conference-paper"
        assert all(a["family-names"] and a["given-names"] for a in ref["authors"])
        assert ref["conference"]["name"].startswith("NeurIPS")
        assert str(ref["year"]) in ref["conference"]["name"]
        assert re.fullmatch(r"https://arxiv\.org/abs/\d{4}\.\d{5}", ref["url"])


def test_the_changelog_keeps_an_unreleased_section_above_the_dated_stages():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[0] == "[Unreleased]"
    dates = [re.match(r"(\d{4}-\d{2}-\d{2})", h).group(1) for h in headings[1:]]
    assert len(dates) >= 4
    assert dates == sorted(dates, reverse=True)


def test_the_packaged_reference_is_the_committed_reference_runs_cut():
    """paper_checks/reference.json is rewritten by ``python -m tools.docs`` whenever the runs
    in docs/results change; it must equal their cut, byte for byte."""
    references = load_references()
    expected = cut_reference({s: (run, r.values()) for s, (run, r) in references.items()})
    assert PACKAGED_REFERENCE.read_text(encoding="utf-8") == dumps(expected)


def test_every_committed_record_reproduces_its_packaged_cut():
    """What a run compares with lost nothing in the cut: each full record of docs/results,
    taken as a run's result, reproduces its packaged record with the same numbers."""
    for scale in ("quick", "full"):
        run, records = load_reference(scale)
        packaged_run, packaged = load_reference_run(scale)
        assert packaged_run["seed"] == run["seed"]
        assert packaged.keys() == records.keys()
        for claim_id, record in records.items():
            n = (record.replication or {}).get("n", 1)
            assert compare(record, packaged[claim_id], packaged_run, n) == {"status": SAME}, (
                claim_id
            )


def test_a_foreign_module_in_place_of_the_core_fails_the_import_in_one_line(tmp_path):
    (tmp_path / "sims.py").write_text("x = 1\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    proc = subprocess.run(
        [sys.executable, "-c", "import paper_checks"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: paper-checks: the module 'sims' found is not this")
    assert str(tmp_path / "sims.py") in last
    assert str(ROOT / "sims") in last


def _site_packages(python: Path) -> Path:
    out = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


@pytest.mark.slow
def test_the_wheel_installed_outside_the_repository_runs_claims_and_solves(tmp_path):
    """Build the wheel, install it (no dependencies) into a fresh virtual environment whose
    dependencies come from this one's site-packages through a .pth file, and, from a folder
    outside the repository, run the online claims at quick and ``solve online``: the run finds
    the packaged reference and reproduces it claim by claim."""
    pytest.importorskip("hatchling")
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "--wheel-dir", str(dist), str(ROOT)],
        check=True,
    )  # fmt: skip
    (wheel,) = dist.glob("paper_checks-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"theory", "sims", "neural", "paper_checks", wheel.name.rsplit("-", 3)[0]
                    + ".dist-info"}  # fmt: skip
    assert "paper_checks/reference.json" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "-q", str(wheel)],
        check=True,
    )  # fmt: skip
    (_site_packages(python) / "dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cli = venv / "bin" / "paper-checks"

    where = subprocess.run(
        [python, "-c", "import paper_checks, theory; print(paper_checks.__file__, theory.__file__)"],
        capture_output=True, text=True, env=env, cwd=work, check=True,
    ).stdout  # fmt: skip
    assert str(ROOT) not in where
    assert where.count(str(_site_packages(python))) == 2

    run = subprocess.run(
        [cli, "run", "online", "--scale", "quick", "--out", "runs/online", "--workers", "1",
         "--fail-on", "never"],
        capture_output=True, text=True, env=env, cwd=work, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "claims reproduce docs/results/quick" in run.stdout
    payload = json.loads((work / "runs" / "online" / "results.json").read_text(encoding="utf-8"))
    assert {c["paper"] for c in payload["claims"]} == {"online"}
    for record in payload["claims"]:
        assert record["reproduction"]["status"] in (SAME, SAME_VERDICT), record["claim_id"]
        assert record["provenance"]["git_sha"] is None  # not a checkout: no commit claimed

    (work / "w.txt").write_text(GADGET, encoding="utf-8")
    solve = subprocess.run(
        [cli, "solve", "online", "--class", "w.txt", "--json"],
        capture_output=True, text=True, env=env, cwd=work, check=False,
    )  # fmt: skip
    assert solve.returncode == 0, solve.stderr[-2000:]
    result = json.loads(solve.stdout)
    assert (result["ldim"], result["vc"], result["mtr"]) == (3, 2, 2)
