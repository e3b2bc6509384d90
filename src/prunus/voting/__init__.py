"""Voting over ALL subtrees of a fixed tree.

PAC-Bayes tree (Nguyen & Kpotufe, NeurIPS 2018): node weights by the two-pass
dynamic program (Algorithms 1-2) in log space; HS-vote (Helmbold & Schapire
1997) as a binary baseline; and the scikit-learn estimators, including the
penalized-pruning baselines of the same paper; and the PAC-Bayes forest, a
random forest whose trees each vote over all their subtrees.
"""

from ._classes import HSVoteClassifier, PACBayesTreeClassifier, PenalizedTreeClassifier
from ._forest import PACBayesForestClassifier
from ._hsvote import hs_vote_weights
from ._pacbayes import NodeStats, pac_bayes_log_phi, pac_bayes_weights, vote_proba

__all__ = [
    "HSVoteClassifier",
    "NodeStats",
    "PACBayesForestClassifier",
    "PACBayesTreeClassifier",
    "PenalizedTreeClassifier",
    "hs_vote_weights",
    "pac_bayes_log_phi",
    "pac_bayes_weights",
    "vote_proba",
]
