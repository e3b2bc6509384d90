"""The records every split-search kernel takes: settings, node data and work space.

Named tuples of arrays and scalars, which numba compiles (and caches) as
plain structures: a kernel receives these records instead of a long list of
positional arrays. (They are passed separately rather than nested in one
record: reading a nested record inside a hot loop takes a reference to every
array it holds, which measured 20-30% slower on spam.) ``search_settings`` turns the estimator's parameter names
into a ``Settings``; ``new_workspace`` allocates the arrays reused by every
node of a fit; ``make_node`` (compiled) derives a node's prefix weights,
class totals and tolerances from its examples.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .._compiled import njit

# split strategies (``Settings.strategy``)
EXHAUSTIVE = 0
QUICK = 1
ADAPTIVE_GAP = 2  # Algorithm 1
ADAPTIVE_LOWER_FIRST = 3  # Adaptive-Pruning with the lower-bound-first rule
STRATEGIES = {"exhaustive": EXHAUSTIVE, "quick": QUICK, "adaptive": ADAPTIVE_GAP}
ADAPTIVE_RULES = {"gap": ADAPTIVE_GAP, "lower_first": ADAPTIVE_LOWER_FIRST}  # split_search="adaptive"

# split criteria (``Settings.criterion``)
ERROR = 0
ENTROPY = 1
CRITERIA = {"error": ERROR, "entropy": ENTROPY}

# ``Settings.min_batch``: size the smallest batch per feature from its seen bins (see ``_split.min_batch``)
AUTO_BATCH = 0
# Relative tolerances (times the node weight): values within TIE count as equal; a feature is pruned only
# when its lower bound exceeds the incumbent by more than PRUNE_TOL * (1 + lg |Y|) >= TIE.
TIE = 1e-10
PRUNE_TOL = 2e-10
# Feature intervals are rounded to multiples of about GRID * (node weight) (``snap``): bounds that are equal
# up to the rounding of their sums become bit-equal, so the comparisons between features, hence the
# batches and assessment counts, do not depend on the order in which weights were summed (the dense
# scans and the sparse ones, whose zero bin is a difference of sums, make the same search).
GRID = 2.0**-32

Settings = namedtuple(
    "Settings",
    [
        "strategy",
        "criterion",
        "n_classes",
        "quick_init",
        "quick_batches",
        "adaptive_init",
        "min_batch",
        "target_mix",
        "extrapolate",
        "exhaustive_below",
    ],
)
Settings.__doc__ = """Scalars of one split search, the same for every node of a fit.

strategy : int
    EXHAUSTIVE, QUICK, ADAPTIVE_GAP or ADAPTIVE_LOWER_FIRST.
criterion : int
    ERROR or ENTROPY.
n_classes : int
quick_init, quick_batches : float, int
    Quick Boost: weight fraction of the initial pass and number of
    equal-weight batches for the rest.
adaptive_init : float
    Adaptive-Pruning: weight fraction assessed for every feature first
    (Algorithm 1: 0.5).
min_batch : int
    Adaptive-Pruning: smallest batch in examples (Algorithm 1: 1), or
    AUTO_BATCH.
target_mix : float
    Lower-bound-first only: where a batch aims between the next-smallest
    lower bound (0) and the smallest upper bound (1).
extrapolate : bool
    Lower-bound-first with the error criterion only: divide a batch's
    weight by the rate at which the feature's lower bound rose per unit of
    assessed weight in its last batch (``_split._extrapolated_gap``).
"""

Node = namedtuple(
    "Node",
    [
        "Xb",
        "feats",
        "nbins",
        "idx",
        "yn",
        "wn",
        "criterion",
        "Zp",
        "node_tot",
        "present",
        "lg_c",
        "tie",
        "tol",
        "grid",
        "sp",
        "by_class",
    ],
)
Node.__doc__ = """One node's examples, in decreasing boosting weight, and what every search derives from them.

Xb : uint array (n_features_total, n_samples_total), bin codes, feature-major.
feats, nbins : int64 arrays (S,), candidate features (increasing ids) and their bins.
idx, yn, wn : arrays (n,), the node's example ids, class codes and weights.
criterion : int
Zp : float array (n + 1,), prefix weights ``Z_m``.
node_tot : float array (n_classes,), class weights.
present : int64 array, the classes with positive weight.
lg_c : float, ``lg`` of the number of present classes.
tie, tol : float, tie and pruning tolerances (TIE and PRUNE_TOL scaled).
grid : float, ``snap_constant(Z_n)``: the rounding of the feature intervals.
sp : SparseCodes, the node's sparse codes (``Xb`` is then empty), or None on dense input (a dense node is then a type of its
    own: the kernels compiled for it carry no sparse arrays, which would slow every record access).
by_class : float array (n_classes + 1 + 2 n), the node's examples grouped by class (``class_prefixes``), for
    ``class_sums_at``: a feature's class sums after its first ``m`` examples are read from it.
"""

SparseCodes = namedtuple("SparseCodes", ["zb", "off", "pos", "bins", "Cp", "cur", "nzs"])
SparseCodes.__doc__ = """The bin codes of one node on sparse input (``Node.sp``).

zb : int64 array (S,), the zero bin (bin of 0.0) of every candidate feature.
off, pos, bins : the node's entries outside the zero bin, per candidate
    feature: slot ``s`` owns ``off[s]:off[s + 1]`` of the example positions
    ``pos`` (increasing, 0..n-1 in the node's order) and of the bins ``bins``.
Cp : float array (n + 1, n_classes), prefix class weights: ``Cp[m, c]`` is the
    weight of class ``c`` among the node's first ``m`` examples.
cur : int64 array (S,), the next entry of each slot not yet assessed.
nzs : float array (S, n_classes), assessed weight per slot and class outside the zero bin.

"""


Workspace = namedtuple(
    "Workspace",
    [
        "hist",
        "seen_tot",
        "brange",
        "occ",
        "mk",
        "lb",
        "ub",
        "tb",
        "L",
        "U",
        "left",
        "right",
        "unseen_cls",
        "nz",
        "cls",
        "upd",
        "every_t",
    ],
)
Workspace.__doc__ = """Work arrays reused by every node of a fit (S features, B bins, C classes).

hist : (S, B, C) seen weight per feature, bin and class.
seen_tot : (S, C) seen weight per feature and class.
brange : (S, 2) lowest and highest seen bin per feature; outside that range the histogram is zero.
occ : (S, B) uint8, whether a bin holds a seen example.
mk : (S,) int64, examples assessed per feature (the assessment counts).
lb, ub : (S,) feature interval; tb : (S,) int64 its best threshold bin.
L, U, nz : (B,) scratch of one feature's scan; left, right, unseen_cls : (C,); cls : (8,) class group.
upd : (S, 4) float, the last two interval updates of each feature in the node: examples assessed and lower
    bound (as summed, not rounded) at the last one, then at the one before (-1 examples: none). LB_wo's
    search for ``min{m : L_m >= E*}`` starts from them.
every_t : (1,) bool, whether every interval update also finds its best threshold ``tb`` (else only a
    feature's last, on all the node's examples): LB_wo's search follows that threshold from there.
"""


def search_settings(
    split_search="exhaustive",
    criterion="error",
    n_classes=2,
    adaptive_rule="gap",
    quick_init=0.9,
    quick_batches=20,
    adaptive_init=0.5,
    min_batch=1,
    adaptive_target=0.0,
    adaptive_extrapolate=False,
    exhaustive_below=0.0,
):
    """``Settings`` from the estimator's parameter names (``min_batch="auto"`` for AUTO_BATCH).

    Raises
    ------
    ValueError
        On an unknown ``split_search``, ``adaptive_rule`` or ``criterion``.
    """
    if split_search not in STRATEGIES:
        raise ValueError(f"split_search must be one of {sorted(STRATEGIES)}, got {split_search!r}.")
    if adaptive_rule not in ADAPTIVE_RULES:
        raise ValueError(f"adaptive_rule must be one of {sorted(ADAPTIVE_RULES)}, got {adaptive_rule!r}.")
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {sorted(CRITERIA)}, got {criterion!r}.")
    strategy = STRATEGIES[split_search]
    if strategy == ADAPTIVE_GAP:
        strategy = ADAPTIVE_RULES[adaptive_rule]
    mb = AUTO_BATCH if isinstance(min_batch, str) else int(min_batch)
    return Settings(
        int(strategy),
        int(CRITERIA[criterion]),
        int(n_classes),
        float(quick_init),
        int(quick_batches),
        float(adaptive_init),
        mb,
        float(adaptive_target),
        bool(adaptive_extrapolate),
        float(exhaustive_below),
    )


def new_workspace(n_features, max_bins, n_classes):
    """Allocate a ``Workspace`` for up to ``n_features`` candidate features."""
    S, B, C = int(n_features), int(max_bins), int(n_classes)
    # no bin seen yet: ``brange`` is the empty range (B, -1), and the histogram outside it is zero
    brange = np.empty((S, 2), dtype=np.int64)
    brange[:, 0] = B
    brange[:, 1] = -1
    return Workspace(
        hist=np.zeros((S, B, C)),
        seen_tot=np.zeros((S, C)),
        brange=brange,
        occ=np.zeros((S, B), dtype=np.uint8),
        mk=np.zeros(S, dtype=np.int64),
        lb=np.zeros(S),
        ub=np.zeros(S),
        tb=np.zeros(S, dtype=np.int64),
        L=np.empty(B),
        U=np.empty(B),
        left=np.empty(C),
        right=np.empty(C),
        unseen_cls=np.empty(C),
        nz=np.empty(B, dtype=np.int64),
        cls=np.empty(8, dtype=np.int64),
        upd=np.full((S, 4), -1.0),
        every_t=np.zeros(1, dtype=np.bool_),
    )


@njit(cache=True)
def node_stats(yn, wn, n_classes):
    """Prefix weights ``Z_m`` and class totals of a node's examples (in their order)."""
    n = yn.shape[0]
    Zp = np.empty(n + 1)
    Zp[0] = 0.0
    node_tot = np.zeros(n_classes)
    for i in range(n):
        Zp[i + 1] = Zp[i] + wn[i]
        node_tot[yn[i]] += wn[i]
    return Zp, node_tot


@njit(cache=True)
def lg_classes(node_tot):
    """``lg`` of the number of classes with positive weight (0 for one class)."""
    present = 0
    for c in range(node_tot.shape[0]):
        if node_tot[c] > 0.0:
            present += 1
    return np.log2(present) if present > 1 else 0.0


@njit(cache=True)
def snap_constant(Zn):
    """``Node.grid`` of a node of weight ``Zn``: ``1.5 * 2^52 * q``, ``q`` the power of two nearest below ``GRID * Zn``.

    Adding and then subtracting it rounds a value in ``[0, 2^51 q)`` to a
    multiple of ``q`` (``snap``). 0 (no rounding) when ``q`` would underflow.
    """
    if not Zn > 0.0:
        return 0.0
    m, e = math.frexp(GRID * Zn)
    if e - 1 < -1000:
        return 0.0
    return 1.5 * math.ldexp(1.0, 52 + e - 1)


@njit(cache=True, inline="always")
def snap(x, grid):
    """``x`` rounded to a multiple of the node's grid step (``grid = snap_constant(Zn)``; infinities unchanged)."""
    return (x + grid) - grid


@njit(cache=True)
def class_prefixes(yn, wn, n_classes):
    """The node's examples grouped by class, in one array (``Node.by_class``; one record field, not three).

    With ``C = n_classes``: ``[0, C]`` hold the offsets ``off`` (class ``c``
    owns entries ``off[c]:off[c + 1]``), then ``n`` positions (increasing
    within each class), then ``n`` running sums of the weights of each
    class in the examples' order: the same sequence of additions as a
    search's running class sums, so the values are the same bit for bit.
    O(n + C), whatever the number of classes. (Positions and offsets are
    integers below 2^53, exact in float64.)
    """
    n = yn.shape[0]
    base = n_classes + 1
    out = np.empty(base + 2 * n)
    off = np.zeros(base, dtype=np.int64)
    for i in range(n):
        off[yn[i] + 1] += 1
    for c in range(n_classes):
        off[c + 1] += off[c]
    fill = off[:n_classes].copy()
    run = np.zeros(n_classes)
    for i in range(n):
        c = yn[i]
        run[c] += wn[i]
        k = fill[c]
        out[base + k] = i
        out[base + n + k] = run[c]
        fill[c] = k + 1
    for c in range(base):
        out[c] = off[c]
    return out


@njit(cache=True, inline="always")
def class_sums_at(node, out, row, m):
    """``out[row, c]``: the weight of class ``c`` among the node's first ``m`` examples, as summed in order.

    One branch-free binary search per class in ``Node.by_class``.
    """
    g = node.by_class
    C = out.shape[1]
    base = C + 1
    n = (g.shape[0] - base) // 2
    for c in range(C):
        a = base + np.int64(g[c])
        lo = a
        hi = base + np.int64(g[c + 1])
        while lo < hi:
            mid = (lo + hi) >> 1
            below = g[mid] < m
            lo = mid + 1 if below else lo
            hi = hi if below else mid
        out[row, c] = g[lo - 1 + n] if lo > a else 0.0


@njit(cache=True)
def make_node(Xb, feats, nbins, idx, yn, wn, settings, sp):
    """The ``Node`` record of examples ``idx`` (decreasing weight) with class codes ``yn`` and weights ``wn``.

    ``Xb`` holds the dense bin codes and ``sp`` is ``None``, or ``sp`` holds
    the node's ``SparseCodes`` (and ``Xb`` is empty).
    """
    Zp, node_tot = node_stats(yn, wn, settings.n_classes)
    by_class = class_prefixes(yn, wn, settings.n_classes)
    Zn = Zp[Zp.shape[0] - 1]
    lg_c = lg_classes(node_tot)
    return Node(
        Xb,
        feats,
        nbins,
        idx,
        yn,
        wn,
        settings.criterion,
        Zp,
        node_tot,
        np.flatnonzero(node_tot > 0.0),
        lg_c,
        TIE * Zn,
        PRUNE_TOL * Zn * (1.0 + lg_c),
        snap_constant(Zn),
        sp,
        by_class,
    )
