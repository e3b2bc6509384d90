"""R's rpart on the same rows, through ``Rscript``: the reference of the CART comparisons.

rpart is fitted with ``rpart.control(cp=0, minsplit=2, minbucket=1,
xval=K, maxcompete=0, maxsurrogate=0)`` (T_max grown to pure leaves, no
competitor or surrogate splits, K-fold CV) and its min-xerror subtree is
taken from the cp table; the seconds are measured inside R
(``system.time`` around the fit and the pruning), so R's start-up and the
reading of the CSV files are not counted. Used by ``prunus reproduce cart``
and ``benchmarks/bench_cart.py``; never by a test's verdict.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import numpy as np


def has_rscript() -> bool:
    """Whether ``Rscript`` is on the PATH (rpart must also be installed for :func:`run_rpart`)."""
    return shutil.which("Rscript") is not None


def rpart_script(method: str, setup: str, select: str, report: str, xval: int = 10) -> str:
    """An R script fitting rpart with the control above on train.csv and
    printing the seconds inside R and ``report`` on test.csv."""
    return rf"""
suppressMessages(library(rpart))
args <- commandArgs(TRUE)
train <- read.csv(args[1]); test <- read.csv(args[2])
{setup}
set.seed(0)
elapsed <- system.time({{
  fit <- rpart(y ~ ., data = train, method = "{method}",
               control = rpart.control(cp = 0, minsplit = 2, minbucket = 1, xval = {int(xval)},
                                       maxcompete = 0, maxsurrogate = 0))
  cp <- fit$cptable
  best <- which.min(cp[, "xerror"])
  {select}
}})[["elapsed"]]
cat(elapsed, {report}, "\n")
"""


#: Classification: test error of the min-xerror subtree and of the 1-SE subtree.
RPART_CLASS_SCRIPT = rpart_script(
    "class",
    "train$y <- factor(train$y); test$y <- factor(test$y, levels = levels(train$y))",
    """pruned0 <- prune(fit, cp = cp[best, "CP"])
  bound <- cp[best, "xerror"] + cp[best, "xstd"]
  pruned1 <- prune(fit, cp = cp[which(cp[, "xerror"] <= bound)[1], "CP"])""",
    'mean(predict(pruned0, test, type = "class") != test$y), mean(predict(pruned1, test, type = "class") != test$y)',
)


def rpart_anova_script(xval: int = 10) -> str:
    """Regression (``method="anova"``): test mean squared error and leaves of the min-xerror subtree."""
    return rpart_script(
        "anova",
        "",
        'pruned <- prune(fit, cp = cp[best, "CP"])',
        'mean((predict(pruned, test) - test$y)^2), sum(pruned$frame$var == "<leaf>")',
        xval,
    )


def run_rpart(Xtr, ytr, Xte, yte, script_text: str = RPART_CLASS_SCRIPT) -> tuple[float, ...]:
    """rpart's CV fit on the same rows: the numbers the R script prints
    (seconds inside R, then its test errors). NaN is written as R's NA."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for part, (X, y) in (("train", (Xtr, ytr)), ("test", (Xte, yte))):
            path = os.path.join(tmp, f"{part}.csv")
            header = ",".join(f"x{j}" for j in range(X.shape[1])) + ",y"
            np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.17g")
            paths.append(path)
        script = os.path.join(tmp, "fit.R")
        with open(script, "w") as fh:
            fh.write(script_text)
        out = subprocess.run(["Rscript", script, *paths], capture_output=True, text=True, check=True)
    return tuple(float(v) for v in out.stdout.split())
