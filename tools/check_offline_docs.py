"""Check that a built HTML site loads nothing from another site.

Usage: ``python tools/check_offline_docs.py docs/_build`` (after
``python -m sphinx -b html docs docs/_build``). Exit status 1, with one line
per offending reference, when any page or stylesheet of the site loads a
script, a style sheet, a font, an image or a frame from an absolute URL
(``http:``, ``https:`` or protocol-relative ``//host``); exit status 2 when
the directory holds no HTML page. Links a reader follows (``<a href>``) are
not loads and are allowed.

The documentation must read offline (formulas included: MathJax is served
from the site's own ``_static``), so CI runs this after building the site.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

#: ``<link rel=...>`` values that make the browser fetch the linked URL.
LOADING_RELS = {
    "stylesheet",
    "preload",
    "modulepreload",
    "prefetch",
    "preconnect",
    "dns-prefetch",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "manifest",
}
#: element -> attributes whose URL the browser fetches to render the page.
LOADING_ATTRS = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "source": ("src", "srcset"),
    "audio": ("src",),
    "video": ("src", "poster"),
    "track": ("src",),
}
_EXTERNAL = re.compile(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//", re.ASCII)
# url(...) and @import "..." in CSS (style sheets, <style> blocks and style="..." attributes).
_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)|@import\s+(['"])([^'"]+)\3""", re.I)


def is_external(url: str) -> bool:
    """Whether ``url`` points to another site (a scheme with ``//`` or a protocol-relative ``//host``)."""
    return bool(_EXTERNAL.match(url)) and not url.strip().lower().startswith("file:")


def css_external_urls(css: str) -> list[str]:
    """The absolute URLs that a piece of CSS loads (``url(...)``, ``@import``)."""
    found = []
    for match in _CSS_URL.finditer(css):
        url = match.group(2) or match.group(4)
        if url and is_external(url):
            found.append(url.strip())
    return found


class _PageScanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []  # (what, url)
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "link":
            rels = set(values.get("rel", "").lower().split())
            if rels & LOADING_RELS and is_external(values.get("href", "")):
                self.found.append((f"<link rel={values['rel']}>", values["href"]))
        for attr in LOADING_ATTRS.get(tag, ()):
            for url in _urls_of(attr, values.get(attr, "")):
                if is_external(url):
                    self.found.append((f"<{tag} {attr}>", url))
        if "style" in values:
            self.found += [(f"<{tag} style>", url) for url in css_external_urls(values["style"])]
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.found += [("<style>", url) for url in css_external_urls(data)]


def _urls_of(attr: str, value: str) -> list[str]:
    if attr == "srcset":  # "url 1x, url 2x"
        return [part.split()[0] for part in value.split(",") if part.split()]
    return [value] if value else []


def html_external_loads(html: str) -> list[tuple[str, str]]:
    """``(element, url)`` for every resource of an HTML page that comes from another site."""
    scanner = _PageScanner()
    scanner.feed(html)
    scanner.close()
    return scanner.found


def check_site(root: Path) -> list[str]:
    """One line ``path: element url`` per external load in the site under ``root``."""
    problems = []
    for path in sorted(root.rglob("*.html")):
        for what, url in html_external_loads(path.read_text(encoding="utf-8", errors="replace")):
            problems.append(f"{path.relative_to(root)}: {what} {url}")
    for path in sorted(root.rglob("*.css")):
        for url in css_external_urls(path.read_text(encoding="utf-8", errors="replace")):
            problems.append(f"{path.relative_to(root)}: url() {url}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python tools/check_offline_docs.py BUILD_DIR", file=sys.stderr)
        return 2
    root = Path(args[0])
    pages = list(root.rglob("*.html")) if root.is_dir() else []
    if not pages:
        print(f"check_offline_docs: no HTML page under {root} (build the site first)", file=sys.stderr)
        return 2
    problems = check_site(root)
    for line in problems:
        print(line)
    if problems:
        print(f"check_offline_docs: {len(problems)} resource(s) loaded from other sites", file=sys.stderr)
        return 1
    print(f"check_offline_docs: {len(pages)} pages, every script, style, font and image is local")
    return 0


if __name__ == "__main__":
    sys.exit(main())
