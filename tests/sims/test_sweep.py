"""Sweeps: grids, seeding independent of workers, atomic resumable caches, SIGKILL recovery."""

from __future__ import annotations

import ast
import logging
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from sims._fingerprint import module_slice
from sims.sweep import (
    ProcessExecutor,
    SerialExecutor,
    canonical_code,
    code_fingerprint,
    make_executor,
    param_grid,
    run_sweep,
    task_checkpoint_dir,
)
from tests.sims import sweep_tasks

ROOT = Path(__file__).resolve().parents[2]


def _values(records):
    return [(r["index"], r["params"], r["seed_index"], r["result"]["u"]) for r in records]


def test_param_grid_is_the_cartesian_product_in_axis_order():
    grid = param_grid(m=[8, 16], gamma=[-1.0, 0.1])
    assert grid == [
        {"m": 8, "gamma": -1.0},
        {"m": 8, "gamma": 0.1},
        {"m": 16, "gamma": -1.0},
        {"m": 16, "gamma": 0.1},
    ]


@pytest.mark.parametrize("bad", [[], "abc", 3])
def test_param_grid_rejects_bad_axes(bad):
    with pytest.raises(ValueError, match="axis 'm'"):
        param_grid(m=bad)


def test_records_are_ordered_and_seeded_by_task_index():
    records = run_sweep(sweep_tasks.draw, param_grid(x=[1, 2, 3]), n_seeds=2, root_seed=7)
    assert [r["index"] for r in records] == list(range(6))
    assert [r["seed_index"] for r in records] == [0, 1] * 3
    for r in records:
        expected = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(r["index"],))).random(
            3
        )
        np.testing.assert_array_equal(r["result"]["u"], expected)


def test_paired_seeds_share_streams_across_parameter_points():
    records = run_sweep(sweep_tasks.draw, param_grid(x=[1, 2]), n_seeds=2, paired_seeds=True)
    by_seed = {}
    for r in records:
        by_seed.setdefault(r["seed_index"], []).append(r["result"]["u"])
    for streams in by_seed.values():
        assert streams[0] == streams[1]
    assert by_seed[0] != by_seed[1]


def test_process_pool_gives_the_serial_results_and_pins_threads():
    grid = param_grid(x=list(range(8)))
    serial = run_sweep(sweep_tasks.draw, grid, root_seed=3)
    with ProcessExecutor(2) as pool:
        pooled = run_sweep(sweep_tasks.draw, grid, root_seed=3, executor=pool)
        env = run_sweep(sweep_tasks.thread_env, grid[:2], executor=pool)
    assert _values(pooled) == _values(serial)
    assert {r["result"]["pid"] for r in pooled}.isdisjoint({r["result"]["pid"] for r in serial})
    assert all(r["result"] == {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"} for r in env)


def _live_members(pgid):
    """Processes of group ``pgid`` that are not zombies (Linux /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _wait_until_gone(pgid, polls=600):
    """Poll (every 0.1 s, at most ``polls`` times) until group ``pgid`` has no live process;
    return the processes still alive."""
    for _ in range(polls):
        if not (members := _live_members(pgid)):
            break
        time.sleep(0.1)
    return members


def _logged_grid(tmp_path, n, *, kill_at=-1, serial=True):
    return param_grid(
        x=list(range(n)),
        log=[str(tmp_path / "log.txt")],
        marker=[str(tmp_path / "killed")],
        kill_at=[kill_at],
        serial=[serial],
    )


def _executions(tmp_path):
    log = tmp_path / "log.txt"
    return [int(line) for line in log.read_text().split()] if log.exists() else []


def test_cache_is_reused_without_running_tasks_again(tmp_path):
    grid = _logged_grid(tmp_path, 4)
    first = run_sweep(sweep_tasks.logged_draw, grid, cache_dir=tmp_path / "cache")
    assert sorted(_executions(tmp_path)) == [0, 1, 2, 3]
    assert len(list((tmp_path / "cache").glob("*/task-*.json"))) == 4
    next((tmp_path / "cache").glob("*/task-000002.json")).unlink()
    again = run_sweep(sweep_tasks.logged_draw, grid, cache_dir=tmp_path / "cache")
    assert again == first
    assert sorted(_executions(tmp_path)) == [0, 1, 2, 2, 3]  # only the missing task ran again


def test_other_sweeps_get_their_own_cache(tmp_path):
    grid = param_grid(x=[1, 2])
    first = run_sweep(sweep_tasks.draw, grid, cache_dir=tmp_path)
    other_seed = run_sweep(sweep_tasks.draw, grid, root_seed=1, cache_dir=tmp_path)
    run_sweep(sweep_tasks.mean_of_normals, param_grid(size=[3]), cache_dir=tmp_path)
    assert len(list(tmp_path.iterdir())) == 3
    assert _values(first) != _values(other_seed)
    assert run_sweep(sweep_tasks.draw, grid, cache_dir=tmp_path) == first


@pytest.mark.parametrize("serial", [True, False], ids=["serial", "processes"])
def test_sigkilled_sweep_resumes_with_every_task_exactly_once(tmp_path, serial):
    """The driver is SIGKILLed from inside task 5; the rerun completes the sweep, never
    re-running a task whose result had been stored."""
    n = 12
    script = textwrap.dedent(f"""
        from sims.sweep import make_executor, run_sweep, param_grid
        from tests.sims import sweep_tasks
        from tests.sims.test_sweep import _logged_grid
        from pathlib import Path
        if __name__ == "__main__":
            grid = _logged_grid(Path({str(tmp_path)!r}), {n}, kill_at=5, serial={serial})
            with make_executor({1 if serial else 2}) as ex:
                run_sweep(sweep_tasks.logged_draw, grid, executor=ex,
                          cache_dir=Path({str(tmp_path)!r}) / "cache", root_seed=11)
    """)
    stderr = tmp_path / "stderr.txt"
    with (
        stderr.open("wb") as err,
        subprocess.Popen(
            [sys.executable, "-c", script], cwd=ROOT, stderr=err, start_new_session=True
        ) as driver,
    ):
        driver.wait()
    assert driver.returncode == -signal.SIGKILL, stderr.read_text()
    # Pool workers notice that their driver is gone and exit by themselves.
    assert _wait_until_gone(pgid=driver.pid) == []
    stored_before = {int(p.stem.split("-")[1]) for p in (tmp_path / "cache").glob("*/task-*.json")}
    assert 5 not in stored_before
    assert len(stored_before) < n
    runs_before = len(_executions(tmp_path))

    grid = _logged_grid(tmp_path, n, kill_at=5, serial=serial)
    records = run_sweep(sweep_tasks.logged_draw, grid, cache_dir=tmp_path / "cache", root_seed=11)
    rerun = _executions(tmp_path)[runs_before:]
    assert sorted(rerun) == sorted(set(range(n)) - stored_before)
    assert [r["index"] for r in records] == list(range(n))
    files = sorted(p.name for p in (tmp_path / "cache").glob("*/task-*.json"))
    assert files == [f"task-{i:06d}.json" for i in range(n)]
    clean = run_sweep(sweep_tasks.logged_draw, _logged_grid(tmp_path, n), root_seed=11)
    assert [r["result"]["u"] for r in records] == [r["result"]["u"] for r in clean]


def test_make_executor_validates_its_arguments():
    assert isinstance(make_executor(1), SerialExecutor)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        make_executor(0)
    with pytest.raises(ValueError, match="scheduler must be"):
        make_executor(2, "threads")


def test_run_sweep_validates_n_seeds():
    with pytest.raises(ValueError, match="n_seeds"):
        run_sweep(sweep_tasks.draw, [{"x": 1}], n_seeds=0)


@pytest.fixture
def task_package(tmp_path, monkeypatch):
    """A package ``codepkg`` on sys.path: ``tasks.task`` imports ``helper`` lazily, ``unused`` is
    imported by nothing. Returns a function that rewrites a module."""
    pkg = tmp_path / "src" / "codepkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text("OFFSET = 0.0\n")
    (pkg / "unused.py").write_text("X = 1\n")
    (pkg / "tasks.py").write_text(
        textwrap.dedent("""
            import time


            def task(params, rng):
                from .helper import OFFSET

                return {"u": float(rng.random()) + OFFSET, "t": time.time()}
        """)
    )
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    for name in [m for m in sys.modules if m.startswith("codepkg")]:
        monkeypatch.delitem(sys.modules, name)

    def rewrite(module, text):
        (pkg / f"{module}.py").write_text(text)

    return rewrite


def test_code_fingerprint_follows_the_modules_a_task_imports(task_package):
    from codepkg.tasks import task

    first = code_fingerprint(task)
    task_package("unused", "X = 2\n")
    assert code_fingerprint(task) == first  # not imported by the task
    task_package("helper", "OFFSET = 1.0\n")
    assert code_fingerprint(task) != first  # imported lazily, inside the function
    assert code_fingerprint(sweep_tasks.draw) != code_fingerprint(task)
    skipping = code_fingerprint(task, skip={"codepkg.helper"})
    task_package("helper", "OFFSET = 2.0\n")
    assert code_fingerprint(task, skip={"codepkg.helper"}) == skipping  # skipped: not hashed


CHECKS = """
import math

from .helper import OFFSET
from .unused import X

SCALE = 2.0
LABEL = "a"


def _shared(v):
    return v * SCALE


def _words(v):
    return f"{LABEL}: {v}"


@register(name="a", source="Thm 1", history=[note(_words(1))])
def first(ctx):
    return _shared(OFFSET) + math.pi


@register(name="b", source="Thm 2")
def second(ctx):
    return _words(X)
"""


def _named(name: str):
    """A stand-in for a function ``name`` of ``codepkg.checks`` (the fingerprint reads only the
    module's source, found by the function's module and name)."""

    def fn():
        return None

    fn.__module__, fn.__name__, fn.__qualname__ = "codepkg.checks", name, name
    return fn


def test_a_sliced_fingerprint_counts_only_what_the_function_reads(task_package):
    # `first` reads _shared, SCALE, OFFSET (so codepkg.helper) and math; `second` reads _words,
    # LABEL and X (so codepkg.unused); the registration's ignored keywords read nothing
    ignore = [("register", "source"), ("register", "history")]

    def prints(text: str) -> tuple[str, str]:
        task_package("checks", textwrap.dedent(text))
        return tuple(
            code_fingerprint(_named(f), ignore=ignore, sliced=True) for f in ("first", "second")
        )

    a, b = prints(CHECKS)
    label = prints(CHECKS.replace('LABEL = "a"', 'LABEL = "b"'))
    assert (label[0] == a, label[1] == b) == (True, False)  # only second reads LABEL
    shared = prints(CHECKS.replace("v * SCALE", "v * SCALE + 0"))
    assert (shared[0] == a, shared[1] == b) == (False, True)  # only first reads _shared
    assert prints(CHECKS.replace('source="Thm 1"', 'source="Thm 3"')) == (a, b)  # ignored
    renamed = prints(CHECKS.replace('name="a"', 'name="c"'))
    assert (renamed[0] == a, renamed[1] == b) == (False, True)  # a kept keyword of first's
    prints(CHECKS)
    task_package("helper", "OFFSET = 1.0\n")
    after = tuple(
        code_fingerprint(_named(f), ignore=ignore, sliced=True) for f in ("first", "second")
    )
    assert after[0] != a  # first imports the helper
    assert after[1] == b  # second does not
    assert code_fingerprint(_named("second"), ignore=ignore) != b  # whole module: it does


def test_a_sliced_fingerprint_follows_only_the_names_used_in_other_modules(task_package):
    # first reads helper.OFFSET (a `from` import) and helper.scale via the module alias; an
    # edit to helper.unused leaves it alone, an edit to either name it reads does not
    task_package(
        "checks",
        "from . import helper\nfrom .helper import OFFSET\n\n\n"
        "def first(ctx):\n    return helper.scale(OFFSET)\n",
    )

    def fingerprint(helper: str) -> str:
        task_package("helper", textwrap.dedent(helper))
        return code_fingerprint(_named("first"), sliced=True)

    base = "OFFSET = 0.0\n\n\ndef scale(v):\n    return 2 * v\n\n\ndef unused():\n    return 1\n"
    first = fingerprint(base)
    assert fingerprint(base.replace("return 1", "return 2")) == first
    assert fingerprint(base.replace("OFFSET = 0.0", "OFFSET = 0.5")) != first
    assert fingerprint(base.replace("2 * v", "3 * v")) != first
    assert fingerprint(base + "print('imported')\n") != first  # runs on import: kept whole


GUARDED = """
from theory import _domain


def first(ctx, n, xs):
    if n < 0:
        raise ValueError(f"n must be >= 0 (got {n})")
    _domain.integer("n", n, minimum=0)
    for x in xs:
        if not isinstance(x, int) or x > LIMIT:
            raise ValueError("bad x")
    try:
        if n > 5:
            raise ValueError("too many")
    except ValueError:
        n = 5
    return n * 2
"""


@pytest.mark.parametrize(
    ("old", "new", "counts"),
    [
        # rewording, tightening or adding a guard: no number can change
        ("must be >= 0", "must be non-negative", False),
        ("n < 0", "n < 1", False),
        ("minimum=0)", "minimum=0, maximum=9)", False),
        ("    return n", "    if n > 9:\n        raise ValueError('n')\n    return n", False),
        ("    return n", "    _checks.integer('n', n, maximum=9)\n    return n", False),  # alias
        # the computation, or a statement that is no guard
        ("n * 2", "n * 3", True),
        ('raise ValueError("bad x")', 'raise TypeError("bad x")', True),
        ("x > LIMIT", "next(iter(xs)) > LIMIT", True),  # the test consumes xs
        ("_domain.integer(", "n = _domain.integer(", True),  # its value is used
        ('"n", n, minimum=0)', '"n", next(iter(xs)), minimum=0)', True),  # consumes xs
        ("n > 5", "n > 6", True),  # inside a try: the handler turns it into a value
    ],
)
def test_guards_that_only_refuse_arguments_are_left_out_of_the_fingerprint(
    task_package, old, new, counts
):
    def fingerprint(text: str) -> str:
        task_package("checks", textwrap.dedent(text))
        return code_fingerprint(_named("first"), sliced=True)

    assert old in GUARDED
    assert (fingerprint(GUARDED.replace(old, new)) != fingerprint(GUARDED)) == counts


@pytest.mark.parametrize(
    ("code", "at_full"),
    [
        ("n = ctx.pick(quick=2, full=N)", "n = N"),
        ("n = ctx.pick(quick=2, full=N, paper=M)", "n = N"),
        ("n = ctx.pick(2, N)", "n = ctx.pick(2, N)"),  # positional: left as written
        ("n = ctx.pick(quick=f(2), full=N)", "n = ctx.pick(quick=f(2), full=N)"),  # a call runs
        ("n = 2 if ctx.scale == 'quick' else N", "n = N"),
        ("n = N if ctx.scale in ('full', 'paper') else 2", "n = N"),
        ("if ctx.scale == 'quick':\n    n = 2\nelse:\n    n = N", "n = N"),
        ("if ctx.scale != 'quick':\n    n = N", "n = N"),
        ("if ctx.scale == 'quick':\n    n = 2\nn = N", "n = N"),
        ("if other.scale == 'quick':\n    n = 2", "if other.scale == 'quick':\n    n = 2"),
    ],
)
def test_a_run_at_one_scale_reads_its_own_sizes_and_branches(code, at_full):
    from sims._fingerprint import at_scale

    assert canonical_code(at_scale(ast.parse(code), "full")) == canonical_code(ast.parse(at_full))


PLACED = """
def train(params, rng, *, device: str = "cpu"):
    device = params.pop("device", "cpu")
    backend: str = params.pop("backend", "numpy")
    x = torch.tensor(params["x"], dtype=torch.float32, device=device)
    w = torch.zeros(3, device=x.device).to(device)
    if device != "cpu":
        x = x.pin_memory()
    y = (w + x).cpu().numpy()
    return {"y": y if backend == "numpy" else to_numpy(y)}
"""


@pytest.mark.parametrize(
    ("code", "on_cpu"),
    [
        # what carries a run to a GPU is the identity on the CPU and numpy
        (
            PLACED,
            (
                'def train(params, rng):\n    x = torch.tensor(params["x"], dtype=torch.float32)'
                '\n    w = torch.zeros(3)\n    y = (w + x).numpy()\n    return {"y": y}'
            ),
        ),
        ("x = f(a, device=torch.device(device))", "x = f(a)"),
        ("x = xp.zeros(3, device=array_api_compat.device(a))", "x = xp.zeros(3)"),
        ("x = g(backend=ctx.backend.name)", "x = g()"),
        ("n = 1 if ctx.device == 'cuda' else 2", "n = 2"),
        # what moves a number off the CPU, or changes it, counts
        ("x = a.to(torch.float64)", "x = a.to(torch.float64)"),
        ("x = a.to('meta')", "x = a.to('meta')"),
        ("x = f(a, device='cuda')", "x = f(a, device='cuda')"),
        ("x = g(backend='cupy')", "x = g(backend='cupy')"),
        ("device = 'cuda'", "device = 'cuda'"),
        ("x = a.to(device, non_blocking=True)", "x = a.to(device, non_blocking=True)"),
        ("if device == other:\n    x = 1", "if device == other:\n    x = 1"),
    ],
)
def test_a_cpu_run_reads_no_placement(code, on_cpu):
    from sims._fingerprint import at_placement

    assert canonical_code(at_placement(ast.parse(code))) == canonical_code(ast.parse(on_cpu))


def test_a_gpu_run_reads_its_placement():
    """On a GPU the placement is code that computes there: it counts, and a branch on the device
    is read the other way."""
    from sims._fingerprint import at_placement

    tree = ast.parse(PLACED)
    assert canonical_code(at_placement(tree, "cuda")) == canonical_code(
        ast.parse(
            PLACED.replace(
                '    if device != "cpu":\n        x = x.pin_memory()\n', "    x = x.pin_memory()\n"
            )
            .replace('    backend: str = params.pop("backend", "numpy")\n', "")
            .replace(' if backend == "numpy" else to_numpy(y)', "")
        )
    )
    assert canonical_code(at_placement(tree, "cpu", "cupy")) != canonical_code(at_placement(tree))


def test_the_code_that_carries_a_run_to_a_gpu_leaves_a_cpu_fingerprint_as_it_was(task_package):
    """A task given a device path (the names of sims._fingerprint.at_placement) keeps the
    fingerprint of its CPU runs, and gets another one on a GPU."""
    plain = """
    import numpy as np
    def first(params, rng):
        x = np.asarray(params["x"])
        return {"y": (x * 2).tolist()}
    """
    placed = """
    import numpy as np
    def first(params, rng):
        device = params.pop("device", "cpu")
        x = np.asarray(params["x"])
        if device != "cpu":
            x = move(x, device=device)
        return {"y": (x * 2).tolist()}
    """

    def fingerprint(text: str, device: str = "cpu") -> str:
        task_package("checks", textwrap.dedent(text))
        return code_fingerprint(_named("first"), sliced=True, device=device)

    assert fingerprint(placed) == fingerprint(plain)
    assert fingerprint(placed, "cuda") != fingerprint(plain, "cuda")


def test_no_handler_of_the_computing_code_turns_a_value_error_into_a_value():
    """What makes a guard neutral (sims._fingerprint.without_guards): a handler that catches
    ValueError (or Exception) and does not re-raise could turn a new refusal into another
    number. The one such handler's callees are in GUARDS_COUNTED."""
    from sims._fingerprint import GUARDS_COUNTED

    catching = {"ValueError", "Exception", "BaseException", "ArithmeticError"}
    root = Path(__file__).resolve().parents[2]
    found = []
    for package in ("theory", "sims", "neural", "paper_checks/checks"):
        for path in sorted((root / package).rglob("*.py")):
            if path.name == "_fingerprint.py":  # how fingerprints are taken computes no number
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ExceptHandler) or isinstance(node.body[-1], ast.Raise):
                    continue
                names = ast.walk(node.type) if node.type else [ast.Name("BaseException")]
                caught = {getattr(n, "id", getattr(n, "attr", "")) for n in names}
                if caught & catching:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert [f.partition(":")[0] for f in found] == ["theory/passk_stats.py"], found
    assert {"theory.passk", "theory._domain"} == GUARDS_COUNTED


def test_a_slice_keeps_other_top_level_statements_and_refuses_an_unknown_root():
    import ast

    tree = ast.parse("A = 1\nB = A\nprint(B)\ndef f():\n    return 2\n")
    kept = module_slice(tree, "f")
    assert [type(n).__name__ for n in kept.body] == ["Assign", "Assign", "Expr", "FunctionDef"]
    with pytest.raises(ValueError, match="no top-level 'g'"):
        module_slice(tree, "g")


def test_only_what_draws_and_nothing_else_reads_is_left_out():
    """:func:`sims._fingerprint.without_drawing`: a drawing assignment read only by an ignored
    keyword goes, with any drawing that only it read; one whose value a number reads, or whose
    arguments make another call, stays."""
    import ast

    from sims._fingerprint import without_drawing

    source = (
        "from figs import draw\n"
        "import figs as f\n"
        "def check(rng, x):\n"
        "    panel = f.panel(len(x))\n"
        "    fig = draw(panel, x)\n"
        "    kept = draw(x)\n"
        "    drawn = draw(rng.random())\n"
        "    if x:\n"
        "        inner = draw(x)\n"
        "    return Result(value=kept.y, figures=save(fig, inner), other=drawn)\n"
    )
    tree = without_drawing(ast.parse(source), "", {"figs"}, [("Result", "figures")])
    body = tree.body[2].body
    assert [type(s).__name__ for s in body] == ["Assign", "Assign", "If", "Return"]
    assert [t.id for s in body[:2] for t in s.targets] == ["kept", "drawn"]
    assert body[2].body == []
    unchanged = ast.parse(source)
    assert ast.dump(without_drawing(unchanged, "", set(), [("Result", "figures")])) == ast.dump(
        unchanged
    )


def test_cache_is_not_reused_after_the_task_code_changes(tmp_path, task_package, caplog):
    from codepkg.tasks import task

    grid = param_grid(x=[1, 2])
    first = run_sweep(task, grid, cache_dir=tmp_path / "cache")
    assert run_sweep(task, grid, cache_dir=tmp_path / "cache") == first  # same code: cached
    task_package("helper", "OFFSET = 0.0\nSCALE = 1.0\n")
    with caplog.at_level(logging.WARNING, logger="sims.sweep"):
        again = run_sweep(task, grid, cache_dir=tmp_path / "cache")
    assert [r["result"]["t"] for r in again] != [r["result"]["t"] for r in first]  # ran again
    assert [r["result"]["u"] for r in again] == [r["result"]["u"] for r in first]  # same seeds
    assert len(list((tmp_path / "cache").glob("*/sweep.json"))) == 2
    assert "2 finished tasks cached by other code are not reused" in caplog.text


def test_each_cached_task_gets_a_checkpoint_folder_removed_when_it_finishes(tmp_path):
    assert task_checkpoint_dir() is None
    assert run_sweep(sweep_tasks.checkpoint_folder, [{}])[0]["result"]["folder"] is None
    records = run_sweep(sweep_tasks.checkpoint_folder, [{}, {}], cache_dir=tmp_path)
    folders = [Path(r["result"]["folder"]) for r in records]
    assert [f.name for f in folders] == ["task-000000.ckpt", "task-000001.ckpt"]
    assert all(f.parent.parent == tmp_path and not f.exists() for f in folders)
    assert task_checkpoint_dir() is None


def test_code_fingerprint_ignores_what_computes_no_number(task_package):
    """Comments, layout, docstrings, ``__all__`` and the keywords named in ``ignore`` leave the
    fingerprint alone; any other edit, a string literal included, changes it."""
    from codepkg.tasks import task

    def fingerprint(helper: str) -> str:
        task_package("helper", textwrap.dedent(helper))
        return code_fingerprint(task, ignore=[("register", "source")])

    first = fingerprint('OFFSET = 0.0\nregister(lambda: OFFSET, source="Thm 1", name="a")\n')
    same = fingerprint("""
        '''A helper.'''

        __all__ = ["OFFSET"]
        OFFSET = 0.0  # the offset

        register(
            lambda: OFFSET,
            source="Theorem 1 (Author et al., 2025)",
            name="a",
        )
    """)
    assert same == first
    for edited in (
        'OFFSET = 0.0\nregister(lambda: OFFSET, source="Thm 1", name="b")\n',
        'OFFSET = 0.0\nregister(lambda: OFFSET, source="Thm 1", name="a", label="x")\n',
        'OFFSET = 0.0\nother(lambda: OFFSET, source="Thm 1", name="a")\n',
        'OFFSET = 0.5\nregister(lambda: OFFSET, source="Thm 1", name="a")\n',
    ):
        assert fingerprint(edited) != first, edited


def test_canonical_code_drops_docstrings_of_every_scope_but_keeps_other_strings():
    tree = ast.parse(
        textwrap.dedent('''
            """module"""
            def f():
                """function"""
                return "value"
            class C:
                """class"""
                x = "attribute"
        ''')
    )
    text = canonical_code(tree)
    assert "module" not in text
    assert "function" not in text
    assert "'class'" not in text
    assert "'value'" in text
    assert "'attribute'" in text


def test_an_ignored_call_with_star_loses_all_its_arguments():
    def text(code: str) -> str:
        return canonical_code(ast.parse(code), [("Note", "*")])

    assert text('x = Note("a", why="b")') == text('x = Note("c", "d", why="e", when=1)')
    assert text('x = Note("a")') != text('x = Other("a")')
    assert text('x = Note("a")') != text('y = Note("a")')
