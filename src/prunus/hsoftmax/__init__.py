"""Learned tree-structured softmax (Jernite, Choromanska, Sontag & LeCun), torch extra.

``LabelTree`` places K labels in the leaves of a complete M-ary tree of depth D;
``TreeSoftmax`` is the tree-structured output layer (eq. 5) with Algorithm 1's
node statistics and Algorithm 2's re-assignment (``reassign``);
``TreeLanguageModel`` is the hierarchical log-bilinear language model of
section 6 with learned / random / Huffman tree, flat and adaptive softmax
outputs; ``HuffmanTree`` is the M-ary Huffman tree of label frequencies;
``TreeSoftmaxClassifier`` is a scikit-learn estimator (small MLP + tree).
Both estimators take ``device=``, save to one file (``save`` / ``load``) and
train data-parallel when a torch.distributed process group is initialized
(``python -m prunus.hsoftmax.train`` under ``torchrun``).

Needs torch (the optional extra)::

    pip install torch==2.13.0        # the CPU build
    pip install -e ".[torch]"
"""

try:
    import torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without torch
    raise ImportError(
        "prunus.hsoftmax needs torch, which is an optional extra. Install the CPU build first with "
        '`pip install torch==2.13.0`, then `pip install -e ".[torch]"`.'
    ) from exc

from ..datasets._text import Vocabulary
from ._assign import j_star, node_objective, node_objectives
from ._classifier import TreeSoftmaxClassifier
from ._huffman import HuffmanTree, huffman_codes
from ._label_tree import LabelTree, default_arity
from ._lm import TreeLanguageModel
from ._module import ReassignSchedule, TreeSoftmax

__all__ = [
    "HuffmanTree",
    "LabelTree",
    "ReassignSchedule",
    "TreeLanguageModel",
    "TreeSoftmax",
    "TreeSoftmaxClassifier",
    "Vocabulary",
    "default_arity",
    "huffman_codes",
    "j_star",
    "node_objective",
    "node_objectives",
]
