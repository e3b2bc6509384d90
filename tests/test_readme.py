"""Every Python example of the README runs alone, as a reader would paste it.

Each ```python block is saved as a file and run with ``python example.py`` in
a fresh interpreter in an empty directory, as a user would run it (a block that
starts local Dask workers must then guard its work with
``if __name__ == "__main__":``, since the workers re-import the file). A
block is left out only when the README says why, in an HTML comment on the
line before it: ``<!-- not run by tests/test_readme.py: REASON -->``.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).parents[1] / "README.md"
SKIP = "<!-- not run by tests/test_readme.py:"


def _blocks():
    text = README.read_text()
    blocks = []
    for match in re.finditer(r"```python\n(.*?)```", text, re.S):
        line = text[: match.start()].count("\n") + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        blocks.append((line, match.group(1), before.startswith(SKIP)))
    return blocks


def _needs(code):
    if "prunus.hsoftmax" in code:
        pytest.importorskip("torch")
    if "prunus.distributed" in code or "dask" in code:
        pytest.importorskip("distributed")


def test_readme_has_examples_and_few_are_left_out():
    blocks = _blocks()
    assert len(blocks) >= 6
    assert sum(skipped for _, _, skipped in blocks) <= 1, "the README's examples should run"


_RUN = [(line, code) for line, code, skipped in _blocks() if not skipped]


@pytest.mark.parametrize("line, code", _RUN, ids=[f"line{line}" for line, _ in _RUN])
def test_readme_example_runs_alone(line, code, tmp_path):
    _needs(code)
    script = tmp_path / "example.py"
    script.write_text(code)
    result = subprocess.run(
        [sys.executable, script.name], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=_env()
    )
    assert result.returncode == 0, f"README.md line {line}:\n{result.stderr[-3000:]}"
    assert result.stdout.strip(), f"README.md line {line} prints nothing"


def _env():
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    return env
