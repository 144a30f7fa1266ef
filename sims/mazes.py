"""Grid mazes for the deep-CRL checks (CPU substitutes for the paper's Brax mazes, set out in
docs/deep_crl.md): ASCII layouts as a
discrete random-walk grid with its exact successor measure and BFS geodesics, and as a continuous
point-mass maze with wall collisions.

Layouts use scaling-crl's ASCII convention: ``#`` wall, ``R`` start cell, ``G`` goal cell, ``.``
free cell; rows are separated by ``/``. Cell ``(r, c)`` has centre ``(x, y) = (c, r)`` in cell
units.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from theory import _domain

__all__ = [
    "U4",
    "U_SMALL",
    "GridMaze",
    "PointMassMaze",
    "sample_future_pairs",
    "serpentine_layout",
    "successor_measure",
]

#: scaling-crl's U4 maze (the paper's Ant U4 layout): the far goals lie behind the wall below the
#: start.
U4 = "#####/#GGG#/#R#G#/###G#/#G#G#/#GGG#/#####"
#: A smaller U-maze of ours, for the online check at CPU scale.
U_SMALL = "#####/#RGG#/###G#/#GGG#/#####"

_MOVES = np.array([(-1, 0), (1, 0), (0, -1), (0, 1)])  # up, down, left, right as (dr, dc)


def serpentine_layout(n_corridors: int, length: int) -> str:
    """A serpentine maze: ``n_corridors`` horizontal corridors of ``length`` cells joined
    alternately at the right and left ends, so geodesic distance is a sawtooth in the
    coordinates.

    The start is the left end of the top corridor; every free cell is a goal. 7 corridors × 13
    cells give 97 free cells.

    Parameters
    ----------
    n_corridors : int
        Corridors, ≥ 1.
    length : int
        Cells per corridor, ≥ 2.

    Returns
    -------
    str
        The ASCII layout (rows separated by ``/``), for :meth:`GridMaze.from_layout`.

    Raises
    ------
    ValueError
        Unless ``n_corridors`` is an integer ≥ 1 and ``length`` an integer ≥ 2.

    Examples
    --------
    >>> from sims.mazes import GridMaze, serpentine_layout
    >>> serpentine_layout(2, 3)
    '#####/#RGG#/###G#/#GGG#/#####'
    >>> GridMaze.from_layout(serpentine_layout(7, 13)).n_cells
    97
    """
    _domain.integer("n_corridors", n_corridors, minimum=1)
    _domain.integer("length", length, minimum=2)
    rows = ["#" * (length + 2)]
    for k in range(n_corridors):
        rows.append("#" + "G" * length + "#")
        if k < n_corridors - 1:
            gap = length if k % 2 == 0 else 1  # right end after even corridors, left after odd
            rows.append("".join("G" if c == gap else "#" for c in range(length + 2)))
    rows.append("#" * (length + 2))
    return "/".join(rows).replace("G", "R", 1)


@dataclass(frozen=True)
class GridMaze:
    """A parsed ASCII layout.

    Attributes
    ----------
    walls
        Boolean array (rows, cols), True on walls.
    start
        (row, col) of the ``R`` cell.
    goals
        (n_goals, 2) int array of the ``G`` cells.
    """

    walls: np.ndarray
    start: tuple[int, int]
    goals: np.ndarray

    @classmethod
    def from_layout(cls, layout: str) -> GridMaze:
        rows = layout.strip().split("/")
        if len({len(r) for r in rows}) != 1:
            raise ValueError("layout rows must all have the same length")
        grid = np.array([list(r) for r in rows])
        if not set(np.unique(grid)) <= {"#", "R", "G", "."}:
            raise ValueError("layout may contain only '#', 'R', 'G', '.' and '/'")
        if (grid == "R").sum() != 1:
            raise ValueError("layout needs exactly one start cell 'R'")
        walls = grid == "#"
        if not (walls[0].all() and walls[-1].all() and walls[:, 0].all() and walls[:, -1].all()):
            raise ValueError("layout must be enclosed by walls")
        r, c = np.argwhere(grid == "R")[0]
        return cls(walls, (int(r), int(c)), np.argwhere(grid == "G"))

    @cached_property
    def cells(self) -> np.ndarray:
        """(n, 2) free cells (row, col) in row-major order."""
        return np.argwhere(~self.walls)

    @cached_property
    def index(self) -> dict[tuple[int, int], int]:
        return {(int(r), int(c)): i for i, (r, c) in enumerate(self.cells)}

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    def coordinates(self) -> np.ndarray:
        """(n, 2) cell centres (x, y) = (col, row), centred and scaled into [−1, 1] by the larger
        side of the grid (the critic's input)."""
        xy = self.cells[:, ::-1].astype(float)
        centre = (np.array(self.walls.shape[::-1]) - 1) / 2
        return (xy - centre) / (max(self.walls.shape) / 2)

    def transition_matrix(self) -> np.ndarray:
        """Random walk P: each of the four moves with probability 1/4; a move into a wall stays.
        P is symmetric, so the uniform distribution over free cells is stationary."""
        n = self.n_cells
        p = np.zeros((n, n))
        for i, (r, c) in enumerate(self.cells):
            for dr, dc in _MOVES:
                j = self.index.get((int(r + dr), int(c + dc)), i)
                p[i, j] += 0.25
        return p

    def geodesic_distances(self) -> np.ndarray:
        """(n, n) shortest-path lengths in moves, by breadth-first search from every free cell
        (``inf`` between disconnected cells)."""
        n = self.n_cells
        dist = np.full((n, n), np.inf)
        for source in range(n):
            dist[source, source] = 0
            queue = deque([source])
            while queue:
                i = queue.popleft()
                r, c = self.cells[i]
                for dr, dc in _MOVES:
                    j = self.index.get((int(r + dr), int(c + dc)))
                    if j is not None and dist[source, j] == np.inf:
                        dist[source, j] = dist[source, i] + 1
                        queue.append(j)
        return dist

    def euclidean_distances(self) -> np.ndarray:
        """(n, n) straight-line distances between cell centres, in cell units."""
        diff = self.cells[:, None, :] - self.cells[None, :, :]
        return np.sqrt((diff**2).sum(-1))


def successor_measure(p: np.ndarray, gamma: float) -> np.ndarray:
    """The successor measure M = (1−γ)·P·(I−γP)^{-1} = Σ_{k≥1} (1−γ)γ^{k−1} P^k: the law of the
    state reached after a Geometric(1−γ) number k ≥ 1 of steps (the CRL positives: the
    discounted future-state density the paper's critic learns). Rows sum to 1.

    Parameters
    ----------
    p : numpy.ndarray of float, (n, n)
        Row-stochastic transition matrix (e.g. :meth:`GridMaze.transition_matrix`).
    gamma : float
        Discount γ in [0, 1); γ = 0 gives M = P.

    Returns
    -------
    numpy.ndarray of float, (n, n)
        M, row i the law of the future state from state i.

    Raises
    ------
    ValueError
        Unless ``p`` is a non-empty square matrix of finite reals ≥ 0 and ``gamma`` a real in
        [0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> from sims.mazes import U_SMALL, GridMaze, successor_measure
    >>> p = GridMaze.from_layout(U_SMALL).transition_matrix()
    >>> m = successor_measure(p, 0.5)
    >>> bool(np.allclose(m.sum(axis=1), 1)), bool(np.allclose(successor_measure(p, 0.0), p))
    (True, True)
    >>> m[0].round(3).tolist()  # from the start, mass decays along the corridor
    [0.657, 0.284, 0.049, 0.008, 0.0, 0.0, 0.001]
    """
    _domain.reals("p", p, ndim=2, minimum=0.0)
    if np.shape(p)[0] != np.shape(p)[1]:
        raise ValueError(f"p must be a square matrix (got shape {np.shape(p)})")
    _domain.real("gamma", gamma, minimum=0.0, maximum=1.0, open_high=True)
    n = len(p)
    return (1 - gamma) * np.linalg.solve((np.eye(n) - gamma * p).T, p.T).T


def sample_future_pairs(
    m: np.ndarray, n_pairs: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` (state, future) index pairs: the state uniform over cells (the stationary law
    of the symmetric walk), the future drawn from the state's row of M.

    Parameters
    ----------
    m : numpy.ndarray of float, (n, n)
        Successor measure (:func:`successor_measure`), rows summing to 1.
    n_pairs : int
        Pairs drawn.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    states, futures : numpy.ndarray of int, (n_pairs,)
        Cell indices of each pair's state and future.

    Raises
    ------
    ValueError
        Unless ``m`` is a non-empty square matrix of finite reals ≥ 0 and ``n_pairs`` an
        integer ≥ 0.

    Examples
    --------
    >>> import numpy as np
    >>> from sims.mazes import sample_future_pairs
    >>> m = np.array([[0.0, 1.0], [1.0, 0.0]])  # the future is always the other cell
    >>> states, futures = sample_future_pairs(m, 5, np.random.default_rng(0))
    >>> bool((futures == 1 - states).all())
    True
    """
    _domain.reals("m", m, ndim=2, minimum=0.0)
    if np.shape(m)[0] != np.shape(m)[1]:
        raise ValueError(f"m must be a square matrix (got shape {np.shape(m)})")
    _domain.integer("n_pairs", n_pairs, minimum=0)
    states = rng.integers(0, len(m), n_pairs)
    cdf = np.cumsum(m, axis=1)  # (n, n)
    u = rng.random(n_pairs) * cdf[states, -1]
    futures = np.minimum((cdf[states] < u[:, None]).sum(1), len(m) - 1)
    return states, futures


# ------------------------------------------------------------------------- continuous point mass
@dataclass(frozen=True)
class PointMassMaze:
    """A continuous point mass in a grid maze (like the simple_maze environment of the authors'
    code): position (x, y) in cell units, action
    a ∈ [−1, 1]², step ``step``·a with per-axis wall collision (a move along one axis is undone
    when it lands in a wall cell). A goal is reached within ``radius`` cells of its centre."""

    #: The grid maze the point mass moves in.
    maze: GridMaze
    #: Distance moved per unit action, in cells.
    step: float = 0.3
    #: A goal counts as reached within this many cells of its centre.
    radius: float = 0.35

    def start_position(self) -> np.ndarray:
        r, c = self.maze.start
        return np.array([c, r], dtype=float)

    def in_wall(self, xy: np.ndarray) -> np.ndarray:
        """Whether each position (…, 2) lies in a wall cell (cell (r, c) spans ±0.5 about its
        centre)."""
        col = np.floor(xy[..., 0] + 0.5).astype(int)
        row = np.floor(xy[..., 1] + 0.5).astype(int)
        return self.maze.walls[row, col]

    def step_positions(self, xy: np.ndarray, action: np.ndarray) -> np.ndarray:
        """Move every position (B, 2) by step·clip(a, −1, 1), x first, then y; a coordinate move
        that would enter a wall is cancelled."""
        delta = self.step * np.clip(action, -1.0, 1.0)
        out = xy.copy()
        for axis in (0, 1):
            trial = out.copy()
            trial[:, axis] += delta[:, axis]
            ok = ~self.in_wall(trial)
            out[ok, axis] = trial[ok, axis]
        return out

    def at_goal(self, xy: np.ndarray, goal: np.ndarray) -> np.ndarray:
        return np.linalg.norm(xy - goal, axis=-1) <= self.radius

    def normalize(self, xy: np.ndarray) -> np.ndarray:
        """Positions in cell units → the network's input scale (as :meth:`GridMaze.coordinates`)."""
        centre = (np.array(self.maze.walls.shape[::-1]) - 1) / 2
        return (xy - centre) / (max(self.maze.walls.shape) / 2)
