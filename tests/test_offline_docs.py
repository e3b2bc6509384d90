"""The documentation site reads offline: no page loads a script, style, font or image from another site.

CI builds the site after the tests and runs ``tools/check_offline_docs.py``
on it (``.ci/run``); these tests check that checker on small pages, the
configuration that keeps the built site local (MathJax from the site's own
``_static``, no execution-times page with its CDN scripts), and the built
site itself when one is present.
"""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"


def _checker():
    spec = importlib.util.spec_from_file_location("check_offline_docs", ROOT / "tools" / "check_offline_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


check = _checker()

PAGE = """<!DOCTYPE html><html><head>
<link rel="stylesheet" href="_static/theme.css">
<link rel="canonical" href="https://example.org/docs/">
<script src="_static/mathjax/tex-svg.js"></script>
{extra}
</head><body><a href="https://example.org/paper.pdf">the paper</a>
<p style="color: red">x</p></body></html>
"""

EXTERNAL = [
    ('<script src="https://code.jquery.com/jquery-3.7.0.js"></script>', "https://code.jquery.com/jquery-3.7.0.js"),
    ('<script src="//cdn.example.net/mathjax/tex-chtml.js"></script>', "//cdn.example.net/mathjax/tex-chtml.js"),
    (
        '<link href="https://cdn.example.net/bootstrap.min.css" rel="stylesheet" />',
        "https://cdn.example.net/bootstrap.min.css",
    ),
    ('<link rel="preload" as="font" href="https://fonts.example.com/a.woff2">', "https://fonts.example.com/a.woff2"),
    (
        "<style>@import url('https://fonts.example.com/css?family=Lato');</style>",
        "https://fonts.example.com/css?family=Lato",
    ),
    ('<style>@font-face { src: url("http://fonts.example.com/a.woff") }</style>', "http://fonts.example.com/a.woff"),
    ('<div style="background: url(https://img.example.com/b.png)"></div>', "https://img.example.com/b.png"),
    ('<img srcset="_static/a.png 1x, https://img.example.com/a@2x.png 2x">', "https://img.example.com/a@2x.png"),
    ('<iframe src="HTTPS://video.example.com/embed"></iframe>', "HTTPS://video.example.com/embed"),
]


def test_a_local_page_passes():
    assert check.html_external_loads(PAGE.format(extra="")) == []


@pytest.mark.parametrize("extra, url", EXTERNAL, ids=[u for _, u in EXTERNAL])
def test_every_kind_of_external_load_is_found(extra, url):
    assert [found for _, found in check.html_external_loads(PAGE.format(extra=extra))] == [url]


def test_css_files_and_the_command_line(tmp_path, capsys):
    (tmp_path / "_static").mkdir()
    (tmp_path / "index.html").write_text(PAGE.format(extra=""))
    (tmp_path / "_static" / "theme.css").write_text("body { background: url(../img/local.png) }\n")
    assert check.main([str(tmp_path)]) == 0
    assert "every script, style, font and image is local" in capsys.readouterr().out
    (tmp_path / "_static" / "fonts.css").write_text("@font-face { src: url('https://fonts.example.com/x.woff2') }")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "times.html").write_text(PAGE.format(extra=EXTERNAL[0][0]))
    assert check.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "sub/times.html: <script src> https://code.jquery.com/jquery-3.7.0.js",
        "_static/fonts.css: url() https://fonts.example.com/x.woff2",
    ]
    assert check.main([str(tmp_path / "nothing-here")]) == 2


def test_the_configuration_serves_mathjax_from_the_site():
    conf = (DOCS / "conf.py").read_text()
    # MathJax from the site's own _static (sphinx-mathjax-offline copies it there), SVG output (no web fonts)
    assert '"sphinx-mathjax-offline"' in conf
    path = re.search(r'^MATHJAX_PATH = "([^"]+)"', conf, re.M)
    assert "app.config.mathjax_path = MATHJAX_PATH" in conf
    assert path and not check.is_external(path.group(1)) and path.group(1).startswith("mathjax/")
    # sphinx-gallery's execution-times page loads jQuery, DataTables and Bootstrap from CDNs
    assert '"write_computation_times": False' in conf
    # the project's own templates and pages load nothing from another site
    for page in [*DOCS.glob("_templates/**/*"), *DOCS.rglob("*.rst")]:
        if page.is_file() and "_build" not in page.parts and "auto_examples" not in page.parts:
            assert check.html_external_loads(page.read_text()) == [], page


def test_mathjax_ships_with_the_docs_extra():
    pyproject = (ROOT / "pyproject.toml").read_text()
    docs_extra = re.search(r"^docs = \[(.*?)\]", pyproject, re.M | re.S).group(1)
    assert "sphinx-mathjax-offline" in docs_extra
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None:
        pytest.skip("the docs extra is not installed")
    assert (Path(spec.origin).parent / "static" / "mathjax" / "tex-svg.js").is_file()


@pytest.mark.skipif(not (DOCS / "_build" / "index.html").is_file(), reason="the site is not built")
def test_the_built_site_loads_nothing_from_other_sites():
    # A site built earlier in this checkout (CI builds it after the tests and runs the checker then).
    assert check.check_site(DOCS / "_build") == []
    assert (DOCS / "_build" / "_static" / "mathjax" / "tex-svg.js").is_file()
