"""Smooth sensitivity of the mean and of the standard deviation on a trimmed sample, and the noise it is paired with
(SPEC §6, smooth-sensitivity variant; seed 002 §3–§4, after Nissim, Raskhodnikova & Smith, STOC 2007).

Release (SPEC §6): f(x) + (2(γ+1)/ε)·S*_β(x)·Z with β = ε/(2(γ+1)) and Z of density ∝ 1/(1 + |z|^γ), γ > 1
(``noise_multiplier``, ``smooth_beta``, ``sample_admissible_noise``); γ = 2 is the Cauchy distribution, the seed's
choice. Z is drawn in floating point: unlike the grid Laplace of ``noise.py`` it is not protected against Mironov's
floating-point attack. The mean's smooth sensitivity has a closed form (``smooth_sensitivity_mean``); the standard
deviation's is computed exactly, on the sample rounded to a grid (``quantised``), by a branch and bound over windows
of the sorted sample (``smooth_sd``) — not by the seed's Theorem 7, whose candidates under-estimate A⁽ᵏ⁾.

Definitions, proofs and the exact reductions: docs/proofs/smooth-sensitivity.md.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "trimmed", "smooth_beta", "noise_multiplier", "mean_sensitivity_at_distance", "smooth_sensitivity_mean",
    "sd_local_sensitivity", "sd_sensitivity_at_distance", "smooth_sensitivity_sd", "smooth_sd", "sd_global_sensitivity",
    "quantised", "sample_admissible_noise", "admissible_density",
]


# -- parameters and the trimmed sample ------------------------------------------------------------------------------

def smooth_beta(epsilon: float, gamma: float = 2.0) -> float:
    """β = ε/(2(γ + 1)) (SPEC §6)."""
    _check_gamma(gamma)
    if not epsilon > 0:
        raise ValueError("epsilon must be > 0")
    return epsilon / (2.0 * (gamma + 1.0))


def noise_multiplier(epsilon: float, gamma: float = 2.0) -> float:
    """2(γ + 1)/ε: the release is f(x) + noise_multiplier·S*_β(x)·Z (SPEC §6)."""
    return 1.0 / smooth_beta(epsilon, gamma)


def trimmed(values, low: float, high: float, trim: int = 0) -> np.ndarray:
    """Clip to [low, high], sort, drop the ``trim`` smallest and ``trim`` largest values (seed 002 Definition 4.1)."""
    if not low < high:
        raise ValueError("need low < high")
    if trim < 0 or int(trim) != trim:
        raise ValueError("trim must be an integer ≥ 0")
    t = np.sort(np.clip(np.asarray(values, dtype=np.float64).ravel(), low, high))
    if t.size and not np.all(np.isfinite(t)):
        raise ValueError("values must be finite")
    return t[trim: t.size - trim] if 2 * trim < t.size else t[:0]


def _sample(values, low: float, high: float) -> np.ndarray:
    return trimmed(values, low, high, 0)


# -- the mean -------------------------------------------------------------------------------------------------------

def mean_sensitivity_at_distance(values, low: float, high: float, k: int) -> float:
    """A⁽ᵏ⁾ of the mean: max(u − min, max − l)/n for k = 0, (u − l)/n for k ≥ 1 (see the module docstring)."""
    t = _sample(values, low, high)
    if t.size == 0:
        return 0.0
    if k == 0:
        return float(max(high - t[0], t[-1] - low) / t.size)
    return float((high - low) / t.size)


def smooth_sensitivity_mean(values, low: float, high: float, beta: float) -> float:
    """S*_β of the mean = max(A⁽⁰⁾, e^(−β)·A⁽¹⁾) (A⁽ᵏ⁾ is constant for k ≥ 1), in O(n)."""
    if not beta > 0:
        raise ValueError("beta must be > 0")
    return max(mean_sensitivity_at_distance(values, low, high, 0),
               math.exp(-beta) * mean_sensitivity_at_distance(values, low, high, 1))


# -- the standard deviation -----------------------------------------------------------------------------------------

def sd_global_sensitivity(n: int, low: float, high: float) -> float:
    """max |sd(y) − sd(y')| over neighbours in [l, u]ⁿ: (u − l)·√(n − 1)/n (all others at l, one value l → u).
    At most the (u − l)/√n of SPEC §6's global-sensitivity variant."""
    return 0.0 if n < 2 else (high - low) * math.sqrt(n - 1) / n


def quantised(values, low: float, high: float) -> np.ndarray:
    """The sorted sample clipped to [l, u] and rounded to the grid l + j·(u − l)/2^B, B = ``_grid_bits(n)``.

    The standard deviation is released for this sample: rounding each record is a per-record map into [l, u] (l and u
    are grid points), so neighbours stay neighbours, and on the grid every window sum and sum of squares is an exact
    64-bit integer — the sums of squared deviations that the smooth sensitivity hinges on (zero on ties) are then
    exact, not the remainders of a cancellation. The rounding moves a value by at most 2^−(B+1)·(u − l)."""
    t = _sample(values, low, high)
    scale = float(1 << _grid_bits(t.size))
    return low + np.rint((t - low) / (high - low) * scale) / scale * (high - low)


def _grid_bits(n: int) -> int:
    """B = min(26, ⌊(62 − log₂ n)/2⌋): n·(2^B)² < 2^62, so sums of squares of n grid integers fit in int64."""
    return int(min(26, (62 - math.log2(max(n, 1))) // 2))


def sd_local_sensitivity(values, low: float, high: float) -> float:
    """A⁽⁰⁾ = LS(t) of the standard deviation of the quantised sample, in O(n): every value moved to l, u or the
    others' mean."""
    prob = _SdProblem(values, low, high)
    return prob.local() * prob.scale / math.sqrt(max(prob.n, 1))


def _window_ss(s, q, p):
    """Σ(x − x̄)² of p grid integers with exact sums s, q (int64 arrays), as a float, without cancellation: with
    s = p·d + e (0 ≤ e < p), p·Σ(x − x̄)² = p·q − s² gives Σ(x − x̄)² = (q − p·d² − 2·d·e) − e²/p, whose first
    term is an exact integer (zero for equal values)."""
    p = np.broadcast_to(np.asarray(p, dtype=np.int64), np.shape(s))
    safe = np.maximum(p, 1)
    d, e = np.divmod(s, safe)
    exact = q - safe * d * d - 2 * d * e
    return np.where(p > 0, np.maximum(exact.astype(np.float64) - e.astype(np.float64) ** 2 / safe, 0.0), 0.0)


class _Quad:
    """A quadratic in w held in vertex form h + c·(w − a)² with h, c ≥ 0: sums stay free of cancellation."""

    __slots__ = ("h", "c", "a")

    def __init__(self, h, c, a):
        self.h, self.c, self.a = h, c, a

    def __add__(self, other: "_Quad") -> "_Quad":
        c = self.c + other.c
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(c > 0, (self.c * self.a + other.c * other.a) / c, self.a)
            cross = np.where(c > 0, self.c * other.c / c * (self.a - other.a) ** 2, 0.0)
        return _Quad(self.h + other.h + cross, c, a)

    def __getitem__(self, rows) -> "_Quad":
        return _Quad(self.h[rows], self.c[rows], self.a[rows])

    def at(self, w):
        """Values at w (rows × points)."""
        return self.h[:, None] + self.c[:, None] * (w - self.a[:, None]) ** 2

    def coefficients(self):
        """Ascending coefficients (for root finding only)."""
        return np.stack([self.h + self.c * self.a * self.a, -2.0 * self.c * self.a, self.c], axis=-1)


class _SdProblem:
    """The quantised sample in grid units with exact prefix sums, and the three families G, H1, H2 of the module
    docstring. Internally values live in [0, 1] (x = (t − l)/(u − l)) and results are A⁽ᵏ⁾·√n in those units.
    ``floor``: rows whose cheap upper bound (``_max_root_difference``) cannot exceed it are skipped (−∞)."""

    def __init__(self, values, low: float, high: float):
        t = _sample(values, low, high)
        self.scale = high - low
        self.n = n = t.size
        self.unit = 1.0 / float(1 << _grid_bits(n))
        self.xi = np.rint((t - low) / self.scale / self.unit).astype(np.int64)  # grid integers, sorted
        self.x = self.xi * self.unit
        self.N, self.kappa = n - 1, ((n - 1) / n if n else 0.0)
        self.ps = np.concatenate([[0], np.cumsum(self.xi)]).astype(np.int64)
        self.pq = np.concatenate([[0], np.cumsum(self.xi * self.xi)]).astype(np.int64)
        _, self.first = np.unique(self.xi, return_index=True)  # one pivot per distinct value

    def sd(self) -> float:
        """The standard deviation (ddof 0) of the quantised sample, in original units."""
        if self.n == 0:
            return 0.0
        ss = _window_ss(self.ps[-1:], self.pq[-1:], np.array([self.n]))[0]
        return math.sqrt(ss / self.n) * self.unit * self.scale

    # -- building blocks ----------------------------------------------------------------------------------------
    def _window_sums(self, a, p) -> tuple[np.ndarray, np.ndarray]:
        """Integer sums over the windows t[a : a + p]."""
        return self.ps[a + p] - self.ps[a], self.pq[a + p] - self.pq[a]

    def _pool_sums(self, i, a, b) -> tuple[np.ndarray, np.ndarray]:
        """Integer sums of t without index i over pool positions [a, b): pool[j] = t[j] for j < i, t[j + 1] for
        j ≥ i, so the pool's prefix over its first j values is prefix_t[j] (j ≤ i), else prefix_t[j + 1] − tᵢ."""
        own = self.xi[i]

        def prefix(table, j, own):
            return np.where(j <= i, table[j], table[np.minimum(j + 1, self.n)] - own)

        return (prefix(self.ps, b, own) - prefix(self.ps, a, own),
                prefix(self.pq, b, own * own) - prefix(self.pq, a, own * own))

    def _pool_value(self, i, j):
        return self.x[np.where(j < i, j, j + 1)]

    def _others(self, s, q, p, r) -> "_Quad":
        """Q(w) of O = F ∪ {w × r}, F of size p with integer sums s, q, in vertex form Q_F + (p·r/N)(w − x̄_F)²
        (its vertex ``a`` is x̄_F; m(w) = (p·x̄_F + r·w)/N). p, r: scalars or one per row."""
        p, r = np.broadcast_to(p, np.shape(s)), np.broadcast_to(r, np.shape(s))
        mean_f = np.where(p > 0, s / np.maximum(p, 1), 0.0) * self.unit
        return _Quad(_window_ss(s, q, p) * self.unit ** 2, p * r / self.N, mean_f)

    def _square_dist(self, z, p, mean_f, r) -> "_Quad":
        """κ(z − m(w))² = κ(r/N)²(w − (N·z − p·x̄_F)/r)² in vertex form (r ≥ 1)."""
        a = (self.N * z - p * mean_f) / r
        return _Quad(np.zeros(a.shape), np.broadcast_to(self.kappa * (r / self.N) ** 2, a.shape), a)

    def _leave_one_out(self):
        """Q and m of t minus record i, for every i."""
        N = self.N
        s, q = self.ps[-1] - self.xi, self.pq[-1] - self.xi * self.xi
        return _window_ss(s, q, N) * self.unit ** 2, s * self.unit / N

    # -- the families -------------------------------------------------------------------------------------------
    def local(self) -> float:
        """A⁽⁰⁾·√n: every record moved to the far end or to its others' mean."""
        if self.n < 2:
            return 0.0
        Q, m = self._leave_one_out()
        R = np.maximum(1.0 - m, m)
        here = np.sqrt(Q + self.kappa * (self.x - m) ** 2)
        return float(np.maximum(np.sqrt(Q + self.kappa * R * R) - here, here - np.sqrt(Q)).max())

    def global_(self) -> float:
        return math.sqrt(self.kappa) if self.n >= 2 else 0.0

    def _batch(self, ks, counts):
        """Rows for several k at once: row → its k's position (``group``) and its window start ``a``."""
        group = np.repeat(np.arange(ks.size), counts)
        return group, np.arange(group.size) - np.repeat(np.cumsum(counts) - counts, counts)

    def G(self, rs, floor=-np.inf, bound_skipped: bool = False) -> np.ndarray:
        """G(r) for each r in ``rs``: max over the r + 2 windows F of t (size N − r) and w of √(Q + κR²) − √Q.
        G(0), with no free value, takes every leave-one-out sample (a superset of its two windows). ``floor``
        (per r) skips rows as in ``_max_root_difference``; with ``bound_skipped`` they count with their bound, so
        the result stays an upper bound of G."""
        rs = np.atleast_1d(np.asarray(rs, dtype=np.int64))
        floor = np.broadcast_to(np.asarray(floor, dtype=np.float64), rs.shape)
        out = np.full(rs.size, -np.inf)
        if np.any(rs == 0):
            Q, m = self._leave_one_out()
            R = np.maximum(1.0 - m, m)
            out[rs == 0] = (np.sqrt(Q + self.kappa * R * R) - np.sqrt(Q)).max()
        pos = np.flatnonzero(rs > 0)
        if pos.size:
            group, a = self._batch(rs[pos], rs[pos] + 2)  # windows a = 0..r+1 of t
            group = pos[group]
            r = rs[group]
            p = self.N - r
            Q = self._others(*self._window_sums(a, p), p, r)
            lo, hi = np.zeros(a.size), np.ones(a.size)
            for far in (0.0, 1.0):
                A = Q + self._square_dist(far, p, Q.a, r)
                np.maximum.at(out, group, _max_root_difference(A, Q, lo, hi, floor[group], bound_skipped))
        return out

    def H2(self, ks, floor=-np.inf) -> np.ndarray:
        """H2(k) for each k in ``ks``: pivot t₍₁₎ or t₍ₙ₎ kept, r = k others replaced (windows of t minus the
        pivot), pivot moved to the others' mean m."""
        ks = np.atleast_1d(np.asarray(ks, dtype=np.int64))
        floor = np.broadcast_to(np.asarray(floor, dtype=np.float64), ks.shape)
        group, a = self._batch(ks, np.minimum(ks, self.N) + 1)  # windows a = 0..r of the pool
        r = np.minimum(ks, self.N)[group]
        p = self.N - r
        lo, hi = np.zeros(a.size), np.ones(a.size)
        out = np.full(ks.size, -np.inf)
        for i in (0, self.n - 1):
            Q = self._others(*self._pool_sums(i, a, a + p), p, r)
            B = Q + self._square_dist(self.x[i], p, Q.a, r)
            np.maximum.at(out, group, _max_root_difference(B, Q, lo, hi, floor[group]))
        return out

    def H1(self, k: int, floor: float = -np.inf) -> float:
        """Pivot tᵢ kept, r = k ≥ 1 others replaced by w, pivot moved to the far end; w restricted by reduction 3."""
        n, N = self.n, self.N
        r = min(k, N)
        p = N - r
        starts = np.arange(r + 1)
        i = np.repeat(self.first, starts.size)
        a = np.tile(starts, self.first.size)
        b = a + p
        v = self.x[i]
        Q = self._others(*self._pool_sums(i, a, b), p, r)
        m0, m1 = p * Q.a / N, r / N
        # reduction 3a: the pivot is at least as near m as the dropped neighbours pool[a − 1] and pool[b]
        lo, hi = np.zeros(v.size), np.ones(v.size)
        last = max(N - 1, 0)
        for j, exists in ((a - 1, a >= 1), (b, b < N)):
            lo, hi = _restrict_nearer(lo, hi, v, self._pool_value(i, np.clip(j, 0, last)), exists, m0, m1)
        # reduction 3b: the pivot is at least as near e* as its neighbours within F, per far end
        pred_j, succ_j = np.minimum(i, b) - 1, np.maximum(i, a)
        pred = self._pool_value(i, np.clip(pred_j, 0, last))
        succ = self._pool_value(i, np.clip(succ_j, 0, last))
        best = -np.inf
        for far in (0.0, 1.0):
            e0, e1 = (p * Q.a + v + far) / (n + 1), r / (n + 1)
            lo_f, hi_f = _restrict_nearer(lo, hi, v, pred, pred_j >= a, e0, e1)
            lo_f, hi_f = _restrict_nearer(lo_f, hi_f, v, succ, succ_j < b, e0, e1)
            keep = np.flatnonzero(lo_f <= hi_f)
            if keep.size == 0:
                continue
            Qk = Q[keep]
            A = Qk + self._square_dist(far, p, Qk.a, r)
            B = Qk + self._square_dist(v[keep], p, Qk.a, r)
            best = max(best, float(_max_root_difference(A, B, lo_f[keep], hi_f[keep], floor).max()))
        return best

    def at_distance(self, k: int, floor: float = -np.inf) -> float:
        """A⁽ᵏ⁾·√n (normalised units) = max(G(k−1), H1(k), H2(k)); values ≤ ``floor`` may come back as ``floor``."""
        if self.n < 2:
            return 0.0
        if k == 0:
            return self.local()
        if k >= self.n:
            return self.global_()
        return max(floor, self.G(k - 1, floor)[0], self.H2(k, floor)[0], self.H1(k, floor))

    def upper(self, ks) -> np.ndarray:
        """Cheap U(k) ≥ A⁽ᵏ⁾·√n for each k in ``ks`` (< n): every pair within distance k has others O keeping
        ≥ N − k values of t, so Q ≥ Q_min(k), the least Σ(x − x̄)² over windows of N − k values (the minimal-
        variance subset is a window, seed Theorem 6), and R ≤ R_max(k) = max(1 − m_min, m_max) with m_min =
        (sum of the N − k smallest)/N and m_max = (sum of the N − k largest + k)/N; each family's objective is at
        most √(Q + κR²) − √Q, which falls with Q and rises with R."""
        ks = np.atleast_1d(np.asarray(ks, dtype=np.int64))
        n, N, u = self.n, self.N, self.unit
        p = N - ks
        counts = ks + 2
        group = np.repeat(np.arange(ks.size), counts)
        a = np.arange(group.size) - np.repeat(np.cumsum(counts) - counts, counts)
        ss = _window_ss(*self._window_sums(a, p[group]), p[group]) * u * u
        q_min = np.full(ks.size, np.inf)
        np.minimum.at(q_min, group, ss)
        m_min = self.ps[p] * u / N
        m_max = ((self.ps[n] - self.ps[n - p]) * u + ks) / N
        r_max = np.maximum(1.0 - m_min, m_max)
        return np.sqrt(q_min + self.kappa * r_max * r_max) - np.sqrt(q_min)


def _restrict_nearer(lo, hi, v, c, exists, z0, z1):
    """Intersect [lo, hi] with {w : |v − z(w)| ≤ |c − z(w)|}, z(w) = z0 + z1·w, z1 > 0 (where ``exists``).
    (v − z)² ≤ (c − z)² ⟺ z ≤ (v + c)/2 when v < c, z ≥ (v + c)/2 when v > c, always when v = c."""
    mid_w = ((v + c) / 2.0 - z0) / z1
    lo = np.where(exists & (v > c), np.maximum(lo, mid_w), lo)
    hi = np.where(exists & (v < c), np.minimum(hi, mid_w), hi)
    return lo, hi


def _poly_mul(p, q):
    """Product of polynomials given as ascending coefficient arrays along the last axis (batched)."""
    out = np.zeros(p.shape[:-1] + (p.shape[-1] + q.shape[-1] - 1,))
    for i in range(p.shape[-1]):
        for j in range(q.shape[-1]):
            out[..., i + j] += p[..., i] * q[..., j]
    return out


def _real_roots(P, lo, hi):
    """Real roots in [lo, hi] of the batched polynomials P (ascending coefficients), as an (M, deg) array with NaN
    where there is none. Leading coefficients below 1e-13 of the largest are dropped (their roots lie far away)."""
    M, d1 = P.shape
    out = np.full((M, d1 - 1), np.nan)
    size = np.abs(P).max(axis=1)
    nonzero = np.abs(P) > 1e-13 * size[:, None]
    degree = np.where(nonzero.any(axis=1), d1 - 1 - np.argmax(nonzero[:, ::-1], axis=1), 0)
    for d in range(1, d1):
        rows = np.flatnonzero(degree == d)
        if rows.size == 0:
            continue
        c = P[rows, : d + 1] / P[rows, d: d + 1]
        companion = np.zeros((rows.size, d, d))
        companion[:, 0, :] = -c[:, d - 1:: -1][:, :d]
        if d > 1:
            companion[:, np.arange(1, d), np.arange(d - 1)] = 1.0
        roots = np.linalg.eigvals(companion)
        real = np.abs(roots.imag) <= 1e-6 * (1.0 + np.abs(roots.real))
        w = np.where(real, roots.real, np.nan)
        out[rows, :d] = np.where((w >= lo[rows, None]) & (w <= hi[rows, None]), w, np.nan)
    return out


def _difference_bound(A: _Quad, B: _Quad, lo, hi):
    """An upper bound of √A − √B over [lo, hi] per row: with D = A − B, √(B + D) − √B falls with B when D ≥ 0 and is
    negative otherwise, so it is at most √(min B + max(D, 0)) − √(min B) (min of the convex B at its clipped vertex;
    max of the quadratic D at an end or, when D is concave, at its vertex). A relative 1e-9 absorbs rounding."""
    b_min = B.at(np.clip(B.a, lo, hi)[:, None])[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = np.where(A.c < B.c, (A.c * A.a - B.c * B.a) / (A.c - B.c), lo)
    w = np.stack([lo, hi, np.clip(np.nan_to_num(vertex, nan=0.0), lo, hi)], axis=1)
    d_max = np.maximum((A.at(w) - B.at(w)).max(axis=1), 0.0)
    return (np.sqrt(b_min + d_max) - np.sqrt(b_min)) * (1.0 + 1e-9)


def _max_root_difference(A: _Quad, B: _Quad, lo, hi, floor=-np.inf, bound_skipped: bool = False, samples: int = 9):
    """max over w ∈ [lo, hi] of √A(w) − √B(w) per row (reduction 4): the ends, the vertices of A and B (where a
    square root may kink), the real roots of A'²B − B'²A, and ``samples`` evenly spaced points — a guard against a
    root lost to rounding; every candidate is a feasible w, so extra candidates only move the result up towards the
    exact maximum. Rows whose ``_difference_bound`` is ≤ ``floor`` (scalar or per row) are not solved: −∞, or their
    bound with ``bound_skipped``."""
    bound = _difference_bound(A, B, lo, hi)
    out = np.where(bound_skipped, bound, -np.inf)
    rows = np.flatnonzero(bound > floor)
    if rows.size == 0:
        return out
    A, B, lo, hi = A[rows], B[rows], lo[rows], hi[rows]
    cA, cB = A.coefficients(), B.coefficients()
    dA, dB = np.stack([cA[:, 1], 2.0 * cA[:, 2]], axis=-1), np.stack([cB[:, 1], 2.0 * cB[:, 2]], axis=-1)
    P = _poly_mul(_poly_mul(dA, dA), cB) - _poly_mul(_poly_mul(dB, dB), cA)
    grid = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, samples)[None, :]
    vertices = np.stack([np.clip(A.a, lo, hi), np.clip(B.a, lo, hi)], axis=1)
    w = np.concatenate([grid, vertices, _real_roots(P, lo, hi)], axis=1)
    found = ~np.isnan(w)
    w = np.where(found, w, lo[:, None])
    values = np.sqrt(A.at(w)) - np.sqrt(B.at(w))
    out[rows] = np.where(found, values, -np.inf).max(axis=1)
    return out


def sd_sensitivity_at_distance(values, low: float, high: float, k: int) -> float:
    """A⁽ᵏ⁾ of the standard deviation (ddof 0) of the quantised sample, exactly: max(G(k−1), H1(k), H2(k))."""
    if k < 0 or int(k) != k:
        raise ValueError("k must be an integer ≥ 0")
    prob = _SdProblem(values, low, high)
    return prob.at_distance(int(k)) * prob.scale / math.sqrt(max(prob.n, 1))


def smooth_sensitivity_sd(values, low: float, high: float, beta: float) -> float:
    """S*_β of the standard deviation (ddof 0) of the quantised sample = max_{0 ≤ k ≤ n} e^(−kβ)·A⁽ᵏ⁾, exactly."""
    return smooth_sd(values, low, high, beta)[1]


def smooth_sd(values, low: float, high: float, beta: float) -> tuple[float, float]:
    """(sd, S*_β) of the quantised sample (``quantised``), both in original units.

    Branch and bound over k, with ``best`` the largest e^(−kβ)·A⁽ᵏ⁾ known (initially k = 0): the cheap bounds
    U(k) (``_SdProblem.upper``) discard most k; for the rest the lower bounds max(G(k−1), H2(k)) raise ``best`` and
    the upper bounds G(k) ≥ A⁽ᵏ⁾ discard more; the expensive H1(k) is evaluated for the survivors, largest bound
    first, until no bound can beat ``best``. Rows that cannot beat ``best`` are skipped throughout."""
    if not beta > 0:
        raise ValueError("beta must be > 0")
    prob = _SdProblem(values, low, high)
    n = prob.n
    if n < 2:
        return prob.sd(), 0.0
    best = max(prob.local(), math.exp(-n * beta) * prob.global_())  # k = 0 and k ≥ n
    k_stop = min(n - 1, int(math.ceil(math.log(prob.global_() / best) / beta)))
    ks = np.arange(1, k_stop + 1)
    discount = np.exp(-ks * beta)
    ks, discount = ks[discount * prob.upper(ks) > best], discount[discount * prob.upper(ks) > best]
    if ks.size:
        lower = np.maximum(prob.G(ks - 1, best / discount), prob.H2(ks, best / discount))
        best = max(best, float((discount * lower).max()))
        bound = discount * prob.G(ks, best / discount, bound_skipped=True)
        for j in np.argsort(-bound, kind="stable"):
            if bound[j] <= best:
                break
            best = max(best, float(discount[j] * prob.H1(int(ks[j]), best / discount[j])))
    return prob.sd(), best * prob.scale / math.sqrt(n)


# -- the admissible noise --------------------------------------------------------------------------------------------

def _check_gamma(gamma: float) -> None:
    if not (np.isfinite(gamma) and gamma > 1):
        raise ValueError("gamma must be a finite number > 1")


def admissible_density(z, gamma: float = 2.0) -> np.ndarray:
    """The normalised density h(z) = 1/(c_γ(1 + |z|^γ)), c_γ = ∫ dz/(1 + |z|^γ) = (2π/γ)/sin(π/γ)."""
    _check_gamma(gamma)
    c = 2.0 * (math.pi / gamma) / math.sin(math.pi / gamma)
    return 1.0 / (c * (1.0 + np.abs(np.asarray(z, dtype=np.float64)) ** gamma))


def sample_admissible_noise(rng: np.random.Generator, gamma: float = 2.0, size=None) -> np.ndarray:
    """Draws of Z with density ∝ 1/(1 + |z|^γ), γ > 1.

    With V = |Z|^γ/(1 + |Z|^γ) the density of V is ∝ v^(1/γ − 1)(1 − v)^(−1/γ): V ~ Beta(1/γ, 1 − 1/γ), so
    |Z|^γ = V/(1 − V) is beta-prime, the ratio G₁/G₂ of independent Gamma(1/γ) and Gamma(1 − 1/γ) draws; the sign is
    a fair coin. For γ = 2 this is the standard Cauchy distribution."""
    _check_gamma(gamma)
    g1 = rng.standard_gamma(1.0 / gamma, size)
    g2 = rng.standard_gamma(1.0 - 1.0 / gamma, size)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    return sign * (g1 / g2) ** (1.0 / gamma)
