"""Record rpart's primary and surrogate splits on its example data as a test fixture.

R is not a test dependency: this script runs rpart once (Debian
``r-base-core`` and ``r-cran-rpart``) on the four example tables shipped in
the rpart package -- ``kyphosis`` (numeric, complete), ``stagec`` (missing
values, a factor), ``cu.summary`` (missing values, factors of 10 and 6
levels, an ordered factor) and ``car.test.frame`` (regression, missing
values, factors) -- and writes, per table, the data (unordered factors as
level codes 0 .. L - 1 and flagged categorical; ordered factors, which rpart
splits as numbers, as their ranks), the node every row ends in, and for
every split of ``summary(fit)`` the primary split, the competitors'
improvements (to detect ties) and the surrogate splits (feature, split point
and direction or the levels sent each way, agreement, adjusted agreement),
together with the R code, to ``tests/tree/rpart_surrogates.json``, which
``tests/tree/test_rpart_surrogates.py`` compares prunus against.

The R calls use rpart's defaults (``minsplit = 20``, ``minbucket = 7``,
``cp = 0.01``, ``maxcompete = 4``, ``maxsurrogate = 5``, ``usesurrogate =
2``, ``surrogatestyle = 0``) with ``xval = 0`` (no random folds).

Run: ``python benchmarks/rpart_surrogate_fixture.py`` (needs ``Rscript``).
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import tempfile
from pathlib import Path

OUT = Path(__file__).parents[1] / "tests" / "tree" / "rpart_surrogates.json"

R_CODE = r"""
library(rpart)
out <- commandArgs(trailingOnly = TRUE)[1]
ctrl <- rpart.control(minsplit = 20, minbucket = 7, cp = 0.01, maxcompete = 4, maxsurrogate = 5,
                      usesurrogate = 2, surrogatestyle = 0, xval = 0)
dump <- function(name, fit, data, response) {
  fr <- fit$frame
  nodes <- as.integer(rownames(fr))
  write.csv(data.frame(node = nodes, var = as.character(fr$var), n = fr$n,
                       ncompete = fr$ncompete, nsurrogate = fr$nsurrogate),
            file.path(out, paste0(name, "_frame.csv")), row.names = FALSE)
  sp <- fit$splits
  if (is.null(sp)) sp <- matrix(numeric(0), 0, 5, dimnames = list(NULL, c("count", "ncat", "improve", "index", "adj")))
  write.csv(data.frame(var = rownames(sp), ncat = sp[, "ncat"], improve = format(sp[, "improve"], digits = 17),
                       index = format(sp[, "index"], digits = 17), adj = format(sp[, "adj"], digits = 17)),
            file.path(out, paste0(name, "_splits.csv")), row.names = FALSE)
  cs <- if (is.null(fit$csplit)) matrix(0L, 0, 1) else fit$csplit
  write.csv(cs, file.path(out, paste0(name, "_csplit.csv")), row.names = FALSE)
  preds <- attr(fit$terms, "term.labels")
  X <- data.frame(row.names = seq_len(nrow(data)))
  kind <- character(0)
  for (v in preds) {
    x <- data[[v]]
    if (is.factor(x) && !is.ordered(x)) { X[[v]] <- as.integer(x) - 1L; kind <- c(kind, nlevels(x)) }
    else { X[[v]] <- as.numeric(x); kind <- c(kind, 0) }
  }
  X$.y <- if (is.factor(data[[response]])) as.integer(data[[response]]) - 1L else data[[response]]
  X$.where <- nodes[fit$where]
  write.csv(X, file.path(out, paste0(name, "_data.csv")), row.names = FALSE)
  writeLines(paste(preds, kind, sep = "\t"), file.path(out, paste0(name, "_vars.txt")))
}
data(kyphosis); data(stagec); data(cu.summary); data(car.test.frame)
fit <- rpart(Kyphosis ~ Age + Number + Start, data = kyphosis, method = "class", control = ctrl)
dump("kyphosis", fit, kyphosis, "Kyphosis")
st <- stagec; st$progstat <- factor(st$pgstat)
fit <- rpart(progstat ~ age + eet + g2 + grade + gleason + ploidy, data = st, method = "class", control = ctrl)
dump("stagec", fit, st, "progstat")
cu <- cu.summary[!is.na(cu.summary$Reliability), ]
cu$Reliability <- factor(cu$Reliability, ordered = FALSE)
fit <- rpart(Reliability ~ Price + Country + Mileage + Type, data = cu, method = "class", control = ctrl)
dump("cu.summary", fit, cu, "Reliability")
fit <- rpart(Mileage ~ Price + Country + Reliability + Type + Weight + Disp. + HP, data = car.test.frame,
             method = "anova", control = ctrl)
dump("car.test.frame", fit, car.test.frame, "Mileage")
writeLines(c(as.character(packageVersion("rpart")), R.version.string), file.path(out, "versions.txt"))
"""


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _number(text):
    return math.nan if text in ("NA", "") else float(text)


def _table(tmp, name):
    variables = [line.split("\t") for line in (tmp / f"{name}_vars.txt").read_text().splitlines()]
    names = [v for v, _ in variables]
    n_categories = [int(k) for _, k in variables]
    data = _rows(tmp / f"{name}_data.csv")
    X = [[_number(row[v]) for v in names] for row in data]
    y = [float(row[".y"]) for row in data]
    where = [int(row[".where"]) for row in data]
    frame = _rows(tmp / f"{name}_frame.csv")
    splits = _rows(tmp / f"{name}_splits.csv")
    with open(tmp / f"{name}_csplit.csv", newline="") as fh:
        csplit = [[int(v) for v in row] for row in list(csv.reader(fh))[1:]]
    nodes = []
    position = 0

    def split_at(i):
        s = splits[i]
        feature = names.index(s["var"])
        ncat = int(float(s["ncat"]))
        entry = {"feature": feature, "improve": float(s["improve"]), "adj": float(s["adj"])}
        if ncat > 1:
            codes = csplit[int(float(s["index"])) - 1]
            entry["left"] = [k for k, c in enumerate(codes[:ncat]) if c == 1]
            entry["right"] = [k for k, c in enumerate(codes[:ncat]) if c == 3]
        else:
            entry["split"] = float(s["index"])
            entry["left_below"] = ncat == -1  # rpart: ncat -1 sends x < split left
        return entry

    for row in frame:
        node = {"node": int(row["node"]), "n": int(float(row["n"]))}
        if row["var"] != "<leaf>":
            n_compete, n_surrogate = int(float(row["ncompete"])), int(float(row["nsurrogate"]))
            node["primary"] = split_at(position)
            node["competitor_improve"] = [float(splits[position + 1 + j]["improve"]) for j in range(n_compete)]
            first = position + 1 + n_compete
            node["surrogates"] = [split_at(first + j) for j in range(n_surrogate)]
            position = first + n_surrogate
        nodes.append(node)
    return {
        "features": names,
        "n_categories": n_categories,
        "X": [[None if math.isnan(v) else v for v in row] for row in X],
        "y": y,
        "where": where,
        "nodes": nodes,
    }


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        script = tmp / "fixture.R"
        script.write_text(R_CODE)
        subprocess.run(["Rscript", str(script), str(tmp)], check=True)
        fixture = {
            "r_code": R_CODE.strip().splitlines(),
            "versions": (tmp / "versions.txt").read_text().splitlines(),
            "tables": {name: _table(tmp, name) for name in ("kyphosis", "stagec", "cu.summary", "car.test.frame")},
        }
    OUT.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
