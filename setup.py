"""Build step that compiles prunus's numba kernels ahead of time (the rest of the metadata is in pyproject.toml).

After setuptools has copied the package (``build_py``), the kernels are
compiled for the generic CPU of the platform by running every code path of
``prunus._warmup`` on a few rows, and numba's compiled code is written into the
package as ``prunus/_kernel_cache/``: into the build's copy of the package for
a wheel (``pip install .``, ``pip wheel .``), into ``src/prunus`` for an
editable install (``pip install -e .``). An installed prunus loads that code
instead of compiling it on first use (``prunus._compiled``). The wheel holds
machine code and is therefore tagged for one platform and Python version.

``PRUNUS_SKIP_KERNEL_BUILD=1`` skips the step (kernels then compile on first use).
"""

import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class build_py_with_kernels(build_py):
    """``build_py``, then the shipped kernel cache."""

    def run(self):
        super().run()
        if os.environ.get("PRUNUS_SKIP_KERNEL_BUILD", "") == "1":
            print("prunus: PRUNUS_SKIP_KERNEL_BUILD=1, kernels will compile on first use")
            return
        # An editable install runs the package from src/; a wheel packs build_lib.
        root = os.path.join(HERE, "src") if self.editable_mode else os.path.abspath(self.build_lib)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        cmd = [sys.executable, "-m", "prunus._warmup", "--build"]
        print(f"prunus: compiling the kernels ahead of time into {os.path.join(root, 'prunus', '_kernel_cache')}")
        try:
            subprocess.run(cmd, env=env, cwd=root, check=True)
        except subprocess.CalledProcessError as exc:
            raise SystemExit(
                "prunus: compiling the kernels ahead of time failed (see above). Set PRUNUS_SKIP_KERNEL_BUILD=1 to "
                "install without them; they then compile on first use."
            ) from exc


class BinaryDistribution(Distribution):
    """The shipped kernels are machine code: the wheel is platform-specific (not ``py3-none-any``)."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": build_py_with_kernels}, distclass=BinaryDistribution)
