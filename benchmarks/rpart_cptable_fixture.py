"""Record rpart's ``printcp`` table and variable importance on kyphosis as a test fixture.

R is not a test dependency: this script runs rpart once (Debian
``r-base-core`` and ``r-cran-rpart``) and writes its numbers, the R code that
produced them and the data (81 rows of rpart's ``kyphosis``, numeric
predictors only) to ``tests/pruning/rpart_kyphosis_cptable.json``, which
``tests/pruning/test_rpart_cptable.py`` compares prunus against.

rpart's defaults grow a smaller tree (``minsplit = 20``, ``minbucket = 7``,
``cp = 0.01``) and draw random folds; to compare like with like the R code
sets ``minsplit = 2, minbucket = 1, cp = 0`` (prunus's default ``T_max``:
leaves as pure as the data allows), Gini growth, no competitor or surrogate
splits (so the importance is of primary splits only) and fixed folds
``(i - 1) %% 10 + 1``, given to prunus as the same ``(train, test)`` pairs.

A second fit adds rpart's loss matrix ``matrix(c(0, 4, 1, 0), 2)`` (a present
case called absent costs 4), a third the priors ``c(0.5, 0.5)`` (in prunus:
``class_weight="balanced"``, i.e. prior over class frequency).

Run: ``python benchmarks/rpart_cptable_fixture.py`` (needs ``Rscript``).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import tempfile
from pathlib import Path

OUT = Path(__file__).parents[1] / "tests" / "pruning" / "rpart_kyphosis_cptable.json"

R_CODE = r"""
library(rpart)
data(kyphosis)
fold <- (seq_len(nrow(kyphosis)) - 1L) %% 10L + 1L
ctrl <- rpart.control(minsplit = 2, minbucket = 1, cp = 0, xval = fold,
                      maxcompete = 0, maxsurrogate = 0, usesurrogate = 0)
fit <- rpart(Kyphosis ~ Age + Number + Start, data = kyphosis, method = "class",
             parms = list(split = "gini"), control = ctrl)
out <- commandArgs(trailingOnly = TRUE)[1]
write.csv(kyphosis, file.path(out, "data.csv"), row.names = FALSE)
write.csv(format(as.data.frame(fit$cptable), digits = 17), file.path(out, "cptable.csv"), row.names = FALSE)
imp <- fit$variable.importance
write.csv(data.frame(variable = names(imp), importance = format(imp, digits = 17)),
          file.path(out, "importance.csv"), row.names = FALSE)
sink(file.path(out, "printcp.txt")); printcp(fit); sink()
loss <- matrix(c(0, 4, 1, 0), 2)  # rows: true class, columns: predicted; present -> absent costs 4
fitl <- rpart(Kyphosis ~ Age + Number + Start, data = kyphosis, method = "class",
              parms = list(split = "gini", loss = loss), control = ctrl)
write.csv(format(as.data.frame(fitl$cptable), digits = 17), file.path(out, "cptable_loss.csv"), row.names = FALSE)
fitp <- rpart(Kyphosis ~ Age + Number + Start, data = kyphosis, method = "class",
              parms = list(split = "gini", prior = c(0.5, 0.5)), control = ctrl)
write.csv(format(as.data.frame(fitp$cptable), digits = 17), file.path(out, "cptable_prior.csv"), row.names = FALSE)
writeLines(c(as.character(packageVersion("rpart")), R.version.string), file.path(out, "versions.txt"))
"""


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(io.StringIO(fh.read())))


def _columns(rows):
    return {
        "cp": [float(r["CP"]) for r in rows],
        "nsplit": [int(float(r["nsplit"])) for r in rows],
        "rel_error": [float(r["rel error"]) for r in rows],
        "xerror": [float(r["xerror"]) for r in rows],
        "xstd": [float(r["xstd"]) for r in rows],
    }


def main():
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "fixture.R"
        script.write_text(R_CODE)
        subprocess.run(["Rscript", str(script), tmp], check=True)
        data = _csv(Path(tmp) / "data.csv")
        cptable = _csv(Path(tmp) / "cptable.csv")
        cptable_loss = _csv(Path(tmp) / "cptable_loss.csv")
        cptable_prior = _csv(Path(tmp) / "cptable_prior.csv")
        importance = _csv(Path(tmp) / "importance.csv")
        printcp = (Path(tmp) / "printcp.txt").read_text()
        rpart_version, r_version = (Path(tmp) / "versions.txt").read_text().splitlines()[:2]
    fixture = {
        "about": "rpart's printcp on kyphosis; written by benchmarks/rpart_cptable_fixture.py",
        "r_code": R_CODE.strip().splitlines(),
        "rpart_version": rpart_version,
        "r_version": r_version,
        "features": ["Age", "Number", "Start"],
        "X": [[float(row[f]) for f in ("Age", "Number", "Start")] for row in data],
        "y": [row["Kyphosis"] for row in data],
        "folds": [(i % 10) + 1 for i in range(len(data))],
        "cptable": _columns(cptable),
        "variable_importance": {r["variable"]: float(r["importance"]) for r in importance},
        "loss_matrix": [[0.0, 1.0], [4.0, 0.0]],
        "cptable_loss": _columns(cptable_loss),
        "prior": [0.5, 0.5],
        "cptable_prior": _columns(cptable_prior),
        "printcp": printcp.splitlines(),
    }
    OUT.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
