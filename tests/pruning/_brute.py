"""Independent brute force for pruned subtrees, in exact rational arithmetic."""

from fractions import Fraction

from prunus.tree._testing import counts_from_leaves, enumerate_subtrees, random_tree

__all__ = ["all_pruned_subtrees", "counts_from_leaves", "exact_node_risk", "random_tree", "smallest_minimiser"]


def exact_node_risk(counts_row):
    """R(t) unnormalised: weight minus majority weight, as a Fraction."""
    vals = [Fraction(v) for v in counts_row]
    return sum(vals) - max(vals)


def all_pruned_subtrees(tree):
    """Every pruned subtree of ``tree`` as a frozenset of its leaves."""
    return [frozenset(leaves) for leaves in enumerate_subtrees(tree)]


def smallest_minimiser(tree, counts, alpha, subtrees=None, risk=None):
    """T_alpha by exhaustive search: argmin R(T) + alpha |T|, smallest on ties.

    ``alpha`` is a Fraction in unnormalised units (weight per leaf). ``risk``
    (exact unnormalised node risks) replaces the misclassification risks of
    ``counts`` when given.
    """
    subtrees = all_pruned_subtrees(tree) if subtrees is None else subtrees
    risk = [exact_node_risk(row) for row in counts] if risk is None else risk
    best = None
    for leaves in subtrees:
        crit = sum(risk[t] for t in leaves) + alpha * len(leaves)
        key = (crit, len(leaves))
        if best is None or key < best[0]:
            best = (key, leaves)
    return best[1]


def breiman_weakest_link_alphas(tree, counts, risk=None):
    """Exact alpha_k by the textbook weakest-link loop of Table 1 (Fractions,
    unnormalised); ``risk`` as in :func:`smallest_minimiser`."""
    risk = [exact_node_risk(row) for row in counts] if risk is None else risk
    leaves = smallest_minimiser(tree, counts, Fraction(0), risk=risk)
    alphas = [Fraction(0)]
    while len(leaves) > 1:
        internal = set()
        for t in leaves:
            p = tree.parent[t]
            while p != -1:
                internal.add(p)
                p = tree.parent[p]

        def branch_leaves(t):
            out = []
            stack = [t]
            while stack:
                u = stack.pop()
                if u in leaves:
                    out.append(u)
                else:
                    stack += [tree.children_left[u], tree.children_right[u]]
            return out

        def removed(t, current):
            # True when an ancestor of t was pruned earlier in this step.
            p = tree.parent[t]
            while p != -1:
                if p in current:
                    return True
                p = tree.parent[p]
            return False

        g = {t: (risk[t] - sum(risk[u] for u in branch_leaves(t))) / (len(branch_leaves(t)) - 1) for t in internal}
        a = min(g.values())
        for t in sorted(internal, key=lambda u: tree.depth[u]):
            if g[t] == a and not removed(t, leaves):
                leaves = (leaves - set(branch_leaves(t))) | {t}
        alphas.append(a)
    return alphas
