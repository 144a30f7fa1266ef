"""Grid mazes: layouts, exact successor measure vs the truncated series, BFS vs Floyd–Warshall,
future-pair sampling, and the point mass never entering a wall."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims.mazes import (
    U4,
    U_SMALL,
    GridMaze,
    PointMassMaze,
    sample_future_pairs,
    serpentine_layout,
    successor_measure,
)
from tests.naive import shortest_paths_naive, successor_measure_naive


def test_u4_layout_parses_as_in_the_spec():
    maze = GridMaze.from_layout(U4)
    assert maze.walls.shape == (7, 5)
    assert maze.start == (2, 1)
    assert maze.n_cells == 11
    assert len(maze.goals) == 10


def test_serpentine_has_97_cells_and_a_sawtooth_geodesic():
    maze = GridMaze.from_layout(serpentine_layout(7, 13))
    assert maze.n_cells == 97
    geo = maze.geodesic_distances()
    assert np.isfinite(geo).all()
    assert geo.max() == 96  # a single path through all cells
    # the cell below the start (across one wall) is 2·13 − 1 moves away, Euclidean 2 cells
    start = maze.index[maze.start]
    below = maze.index[(maze.start[0] + 2, maze.start[1])]
    assert geo[start, below] == 2 * 13 - 1 + 2 - 1
    assert maze.euclidean_distances()[start, below] == 2


@pytest.mark.parametrize("layout", [U4, U_SMALL, serpentine_layout(3, 4)])
def test_geodesics_match_floyd_warshall(layout):
    maze = GridMaze.from_layout(layout)
    naive = shortest_paths_naive(maze.walls.tolist())
    geo = maze.geodesic_distances()
    cells = [tuple(int(v) for v in c) for c in maze.cells]
    for i, a in enumerate(cells):
        for j, b in enumerate(cells):
            assert geo[i, j] == naive[a, b]


@pytest.mark.parametrize("gamma", [0.0, 0.5, 0.95])
def test_successor_measure_matches_the_series(gamma):
    maze = GridMaze.from_layout(U4)
    p = maze.transition_matrix()
    assert np.allclose(p, p.T)
    assert np.allclose(p.sum(1), 1)
    m = successor_measure(p, gamma)
    assert np.allclose(m.sum(1), 1)
    assert np.allclose(m, successor_measure_naive(p, gamma), atol=1e-12)


def test_successor_measure_rejects_gamma_one():
    with pytest.raises(ValueError, match="gamma"):
        successor_measure(np.eye(2), 1.0)


def test_future_pairs_follow_the_successor_measure():
    maze = GridMaze.from_layout(U_SMALL)
    m = successor_measure(maze.transition_matrix(), 0.9)
    s, g = sample_future_pairs(m, 200_000, np.random.default_rng(1))
    counts = np.zeros_like(m)
    np.add.at(counts, (s, g), 1)
    empirical = counts / counts.sum(1, keepdims=True)
    se = np.sqrt(m * (1 - m) / counts.sum(1, keepdims=True))
    assert np.all(np.abs(empirical - m) <= 5 * se + 1e-12)


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ("###/#R#/##", "same length"),
        ("###/#RX/###", "only"),
        ("###/#G#/###", "start"),
        ("#R#/#G#/###", "enclosed"),
    ],
)
def test_bad_layouts_are_rejected(layout, message):
    with pytest.raises(ValueError, match=message):
        GridMaze.from_layout(layout)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([U4, U_SMALL]))
def test_point_mass_never_enters_a_wall(seed, layout):
    env = PointMassMaze(GridMaze.from_layout(layout))
    rng = np.random.default_rng(seed)
    xy = np.repeat(env.start_position()[None], 16, axis=0)
    for _ in range(60):
        new = env.step_positions(xy, rng.uniform(-1.5, 1.5, xy.shape))
        assert not env.in_wall(new).any()
        assert np.all(np.abs(new - xy) <= env.step + 1e-12)
        xy = new


def test_point_mass_walks_along_a_wall_and_reaches_a_goal():
    env = PointMassMaze(GridMaze.from_layout(U_SMALL))
    xy = env.start_position()[None]  # start (x, y) = (1, 1); wall below it
    xy = env.step_positions(xy, np.array([[1.0, 1.0]]))  # still inside the start cell
    assert np.allclose(xy, [[1.3, 1.3]])
    xy = env.step_positions(xy, np.array([[1.0, 1.0]]))  # y = 1.6 is in the wall row: blocked
    assert np.allclose(xy, [[1.6, 1.3]])
    for action in ([1.0, 0.0], [1.0, 0.0], [0.0, -1.0]):
        xy = env.step_positions(xy, np.array([action]))
    assert np.allclose(xy, [[2.2, 1.0]])
    assert env.at_goal(xy, np.array([2.0, 1.0]))[0]
    assert not env.at_goal(xy, np.array([3.0, 1.0]))[0]
    assert np.allclose(env.normalize(np.array([[2.0, 2.0]])), 0.0)
