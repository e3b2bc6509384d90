"""One rank of a data-parallel fit (run by test_distributed.py): argv = rank world port out_dir output."""

import os
import sys

import numpy as np
import torch
from torch import distributed as dist


def main():
    rank, world, port, out, kind = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    try:
        if kind == "lm":
            from tests.hsoftmax.test_distributed import lm_data, lm_model

            ids = lm_data()
            model = lm_model().fit(ids[:1600], epochs=2)
            result = dict(
                leaf_of_label=torch.as_tensor(model.label_tree_.leaf_of_label),
                state={k: v for k, v in model.module_.state_dict().items() if isinstance(v, torch.Tensor)},
                perplexity=model.perplexity(ids[1600:]),
            )
        else:
            from tests.hsoftmax.test_distributed import clf_data, clf_model

            X, y = clf_data()
            clf = clf_model().fit(X, y)
            result = dict(
                leaf_of_label=torch.as_tensor(clf.label_tree_.leaf_of_label),
                state={k: v for k, v in clf.module_.state_dict().items() if isinstance(v, torch.Tensor)},
                proba=torch.as_tensor(clf.predict_proba(X)),
            )
        torch.save(result, f"{out}/rank{rank}.pt")
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
    # The result is saved and the group destroyed: leave without running the
    # interpreter's teardown, where a native thread pool left joinable can
    # abort the process ("terminate called without an active exception").
    sys.stdout.flush()
    os._exit(0)
