"""rpart's complexity-parameter table (``printcp``) and its figure (``plotcp``).

The table is a view of a :class:`~prunus.pruning.CostComplexityPath` and, for
cross-validated selections, of the CV risks: one row per subtree of the
pruning sequence, the root first, as rpart prints it (Therneau & Atkinson,
*An Introduction to Recursive Partitioning Using the RPART Routines*,
section 4). With R(T) the misclassified share of the pruning sample's weight
(the library's ``CostComplexityPath.risks``) and R(root) that of the root:

* ``cp``: ``alpha_k / R(root)``, the scaled complexity from which ``T_k`` is
  the optimal subtree (rpart's ``CP``; ``alpha_k`` in scikit-learn's
  ``ccp_alpha`` units);
* ``nsplit``: ``|T_k| - 1``;
* ``rel_error``: ``R(T_k) / R(root)`` on the pruning sample;
* ``xerror``: the cross-validated risk at ``T_k``'s evaluation temperature
  (the geometric mean of its alpha interval) over R(root);
* ``xstd``: the standard error of that risk over R(root).

With unit weights and the same tree and folds the table equals rpart's
(kyphosis, recorded in the tests). With case weights two columns can differ:
``xstd`` uses the library's ``sqrt(p (1 - p) / n)`` with ``n`` the number of
rows, where rpart's ``sqrt(p (1 - p) / W)`` treats the total weight ``W`` as a
row count (a factor ``sqrt(W / n)``); and ``cp`` is always Breiman's exact
temperature of the sequence, where rpart was seen to print a smaller CP for
one row of a weighted kyphosis fit (same subtrees, ``rel error`` and
``xerror``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..utils._optional import pyplot
from .path import SquaredErrorPath

if TYPE_CHECKING:
    from .path import CostComplexityPath

COLUMNS = ("cp", "nsplit", "rel_error", "xerror", "xstd")
#: Relative tolerance of :meth:`CPTable.select_index` on a cp equal to a row's.
_CP_RTOL = 1e-10
_HEADERS = {"cp": "CP", "nsplit": "nsplit", "rel_error": "rel error", "xerror": "xerror", "xstd": "xstd"}


class CPTable:
    """rpart's ``cptable``: one row per subtree of the pruning sequence, the root first.

    Columns are numpy arrays, read as attributes or by name
    (``table["xerror"]``); ``str(table)`` prints like rpart's ``printcp``.
    Made by :func:`cp_table`.

    Parameters
    ----------
    cp : ndarray of float
        ``alpha_k / R(root)``: the subtree of the row is selected for every
        ``cp`` from this value up to the previous row's.
    nsplit : ndarray of int
        Splits (leaves minus one).
    rel_error : ndarray of float
        R(T_k) / R(root) on the pruning sample.
    xerror, xstd : ndarray of float or None
        Cross-validated risk and its standard error over R(root); None when
        the fit did not cross-validate (rpart with ``xval = 0``).
    path_index : ndarray of int
        Index ``k`` of every row in the path (``CostComplexityPath`` order:
        the largest tree first).
    root_error : float
        Misclassified weight (or, for a regression path, sum of squares) at
        the root (rpart's "Root node error" numerator).
    root_weight : float
        Weight of the pruning sample (rpart's ``n`` with unit weights).
    """

    def __init__(
        self,
        cp: np.ndarray,
        nsplit: np.ndarray,
        rel_error: np.ndarray,
        xerror: np.ndarray | None,
        xstd: np.ndarray | None,
        path_index: np.ndarray,
        root_error: float,
        root_weight: float,
    ) -> None:
        self.cp = cp
        self.nsplit = nsplit
        self.rel_error = rel_error
        self.xerror = xerror
        self.xstd = xstd
        self.path_index = path_index
        self.root_error = float(root_error)
        self.root_weight = float(root_weight)

    @property
    def columns(self) -> tuple[str, ...]:
        """Names of the columns present (``xerror`` and ``xstd`` only after CV).

        Returns
        -------
        names : tuple of str
            In rpart's order.
        """
        return tuple(name for name in COLUMNS if getattr(self, name) is not None)

    def __len__(self):
        return int(self.cp.shape[0])

    def __getitem__(self, name):
        if name not in self.columns:
            raise KeyError(f"no column {name!r}; the columns are {self.columns}.")
        return getattr(self, name)

    def to_dict(self) -> dict[str, np.ndarray]:
        """The columns as a dict of arrays (e.g. for ``pandas.DataFrame``).

        Returns
        -------
        columns : dict of str to ndarray
            Copies of the columns present.
        """
        return {name: getattr(self, name).copy() for name in self.columns}

    def __repr__(self):
        return f"CPTable(rows={len(self)}, columns={self.columns})"

    def __str__(self):
        frac = self.root_error / self.root_weight if self.root_weight > 0 else float("nan")
        lines = [
            f"Root node error: {_g(self.root_error)}/{_g(self.root_weight)} = {_g(frac)}",
            "",
            f"n= {_g(self.root_weight)}",
            "",
        ]
        cells = {name: _format_column(getattr(self, name), integer=name == "nsplit") for name in self.columns}
        rows = [str(i + 1) for i in range(len(self))]
        label_width = max(len(r) for r in rows)
        widths = {name: max(len(_HEADERS[name]), *(len(c) for c in cells[name])) for name in self.columns}
        lines.append(" " * label_width + "".join(" " + _HEADERS[n].rjust(widths[n]) for n in self.columns))
        for i, label in enumerate(rows):
            lines.append(label.ljust(label_width) + "".join(" " + cells[n][i].rjust(widths[n]) for n in self.columns))
        return "\n".join(lines)

    def select_index(self, cp: float) -> int:
        """Path index of the subtree rpart's ``prune(fit, cp)`` keeps: that of
        the first row whose ``cp`` is at most the given one.

        A value within a relative ``1e-10`` of a row's ``cp`` counts as that
        row's, so a cp copied at full precision from this table or from
        rpart's (whose last bits may differ) selects its row; a printed value
        rounded below a row's cp does not (as in rpart).

        Parameters
        ----------
        cp : float
            The complexity parameter, finite and >= 0.

        Returns
        -------
        k : int
            Index of the subtree in the pruning path.
        """
        cp = float(cp)
        if not math.isfinite(cp) or cp < 0:
            raise ValueError(f"cp must be a finite number >= 0, got {cp!r}.")
        # Rows run root first, so cp decreases down the table.
        row = int(np.searchsorted(-self.cp, -cp * (1.0 + _CP_RTOL), side="left"))
        return int(self.path_index[min(row, len(self) - 1)])

    def plot(self, ax: Any = None, upper: str = "size", minline: bool = True) -> Any:
        """rpart's ``plotcp`` (see :func:`plot_cv`).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure when omitted.
        upper : {"size", "splits", "none"}, default="size"
            What the top axis shows: leaves, splits or nothing.
        minline : bool, default=True
            Draw the 1-SE threshold.

        Returns
        -------
        ax : matplotlib Axes
            The Axes drawn on.
        """
        return plot_cv(self, ax=ax, upper=upper, minline=minline)


def cp_table(path: CostComplexityPath, cv_results: dict[str, Any] | None = None) -> CPTable:
    """The :class:`CPTable` of a pruning path and, optionally, its CV results.

    Parameters
    ----------
    path : CostComplexityPath
        The pruning path (its ``risks`` and ``alphas`` give the columns).
    cv_results : dict, optional
        ``mean_risk`` and ``se_risk`` per subtree of the path (the
        ``cv_results_`` of a cross-validated :class:`CARTClassifier`).

    Returns
    -------
    table : CPTable
        One row per subtree, the root first.
    """
    counts = np.asarray(path.counts, dtype=np.float64)
    if isinstance(path, SquaredErrorPath):
        # A squared-error path: per node weight, mean and sum of squares; the
        # root's error is its sum of squares (rpart's deviance of method "anova").
        root_weight, root_error = float(counts[0, 0]), float(counts[0, 2])
    else:
        root_weight = float(counts[0].sum())
        # The root's loss as a leaf: misclassified weight, or expected loss under the path's matrix.
        root_error = float(path.misclassified(counts, path.alphas[-1:])[0])
    root_risk = float(path.risks[-1])
    # A pure root (R(root) = 0) has a one-row path; rpart divides by it anyway.
    scale = root_risk if root_risk > 0 else 1.0
    order = np.arange(len(path))[::-1]
    xerror = xstd = None
    if cv_results is not None:
        xerror = np.asarray(cv_results["mean_risk"], dtype=np.float64)[order] / scale
        xstd = np.asarray(cv_results["se_risk"], dtype=np.float64)[order] / scale
    return CPTable(
        cp=path.alphas[order] / scale,
        nsplit=path.n_leaves[order] - 1,
        rel_error=path.risks[order] / scale,
        xerror=xerror,
        xstd=xstd,
        path_index=order.copy(),
        root_error=root_error,
        root_weight=root_weight,
    )


def plot_cv(table: Any, ax: Any = None, upper: str = "size", minline: bool = True) -> Any:
    """rpart's ``plotcp``: cross-validated relative error against cp and tree size.

    Each subtree is a point at ``xerror`` with a bar of one ``xstd`` either
    side; the lower axis shows the geometric mean of the subtree's cp
    interval (the value its CV risk was computed at), the upper one its size;
    the dotted line is the 1-SE threshold, the minimum ``xerror`` plus its
    ``xstd`` (the 1-SE rule keeps the smallest tree below it).

    Parameters
    ----------
    table : CPTable or fitted CARTClassifier
        The table, or an estimator whose ``cv_table_`` it is.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    upper : {"size", "splits", "none"}, default="size"
        What the top axis shows: leaves, splits or nothing.
    minline : bool, default=True
        Draw the 1-SE threshold.

    Returns
    -------
    ax : matplotlib Axes
        The Axes drawn on.
    """
    if not isinstance(table, CPTable):
        table = getattr(table, "cv_table_", None)
        if not isinstance(table, CPTable):
            raise TypeError("table must be a CPTable or a fitted estimator with a cv_table_.")
    if table.xerror is None or table.xstd is None:
        raise ValueError("plot_cv needs cross-validation results: fit with selection='cv' or 'cv-1se'.")
    if upper not in ("size", "splits", "none"):
        raise ValueError(f"upper must be 'size', 'splits' or 'none', got {upper!r}.")
    plt = pyplot("plot_cv")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ns = np.arange(1, len(table) + 1)
    shown = np.sqrt(table.cp * np.concatenate([[np.inf], table.cp[:-1]]))
    ax.errorbar(ns, table.xerror, yerr=table.xstd, fmt="o-", ms=4, capsize=2, color="C0")
    ax.set_xticks(ns)
    ax.set_xticklabels([_signif(v) for v in shown], rotation=45, ha="right", rotation_mode="anchor")
    ax.set_xlabel("cp")
    ax.set_ylabel("X-val relative error")
    if minline:
        best = int(np.flatnonzero(table.xerror == table.xerror.min())[0])
        ax.axhline(table.xerror[best] + table.xstd[best], ls=":", color="gray")
    if upper != "none":
        top = ax.secondary_xaxis("top")
        top.set_xticks(ns)
        labels = table.nsplit + 1 if upper == "size" else table.nsplit
        top.set_xticklabels([str(int(v)) for v in labels])
        top.set_xlabel("size of tree" if upper == "size" else "number of splits")
    return ax


def _signif(value, digits=2):
    if not np.isfinite(value):
        return "inf"
    return f"{value:.{digits}g}"


def _g(value):
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.5g}"


def _format_column(values, integer=False, digits=5):
    """Strings of one column with common decimals, as R prints a matrix:
    enough decimals for the value that needs most to show ``digits``
    significant digits."""
    values = np.asarray(values)
    if integer:
        return [str(int(v)) for v in values]
    decimals = 0
    for v in values.astype(np.float64):
        if v == 0 or not np.isfinite(v):
            continue
        exponent = math.floor(math.log10(abs(v)))
        full = float(f"{v:.{digits - 1}e}")
        needed = next(k for k in range(1, digits + 1) if float(f"{v:.{k - 1}e}") == full)
        decimals = max(decimals, needed - 1 - exponent)
    return [f"{v:.{decimals}f}" for v in values.astype(np.float64)]
