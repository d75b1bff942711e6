"""Render stage: a checked rulebook as a static HTML site for reviewers.

``render_site(model, out_dir, lang=None, variant_model=None, diff=None, unexercised=None)``
writes:

- ``index.html``: title, edition, languages, the sections by number, and every doubt and
  gap of the sources, counted and linked to where it stands;
- one page per source file (``orders.drill`` → ``orders.html``): each section with its
  number and title (anchor ``s-NUMBER``), its annotations (doubts and gaps flagged), and
  each declaration (anchor ``d-NAME``) with its annotations, its source highlighted by the
  Pygments lexer with line numbers as in the file, every name of a declaration linked to
  it, every table also drawn as the printed chart (``<table class="chart">``: the key
  column headed by the labels of the keys, header row, key column, cells as printed,
  footnote markers as ``<sup>``, NA as —, a cell's doubts and gaps flagged on the cell,
  and a legend of the markers), and every modifier list as the printed list of die-roll
  modifiers;
- ``redline.html`` for one or more variants: their titles, each changed section with the
  base and the variants side by side (stacked on a narrow screen) — changed cells marked
  (``changed``, before → after), dropped rules struck through, added rules highlighted —
  and, given ``diff`` (what ``diff.semantic_diff`` returns), the odds that change;
- ``search-index.json`` and ``search-index.js`` (the index of sections, rules, labels in
  every language and cells) and ``search.js``, which searches it in the browser with no
  network, so pages work from file://;
- ``style.css`` and ``pygments.css``.

The pages are drawn by Jinja2 templates with autoescaping (``env.py``, ``templates/``).
``unexercised``: the places no example exercises — declarations, modifiers and table
cells, as Locs or ``(path, line, col)``, in a set or mapping each to what was never seen
(what ``coverage.uncovered_locs`` gives); they are marked so on the pages.

Labels are shown in ``lang`` where a translation exists, otherwise in English.  Every page
is rendered in memory first, then written into a temporary folder next to ``out_dir``
that replaces ``out_dir`` by renames at the end: on any error nothing is written and an
earlier site in ``out_dir`` stays as it was.  An existing ``out_dir`` is only replaced if
it is empty or is a site this function wrote (it holds a ``.drillbook-site`` file).
"""
from __future__ import annotations

import os
import shutil
import tempfile

from ..atomic import swap_in
from ..errors import Loc, fail
from .site import (SITE_MARKER,
    _Highlighter,
    _Sources)
from .env import static
from .pages import (_prepare,
    _render_pages)
from .redline import (_redline)
from .search import index_files
from .charts import cell_text, chart_view

__all__ = ["render_site", "chart_view", "SITE_MARKER", "cell_text"]


# ------------------------------------------------------------------ writing
def _check_out_dir(out_dir: str) -> str:
    target = os.path.abspath(out_dir)
    where = Loc("<command line>")
    if os.path.exists(target) and not os.path.isdir(target):
        fail(where, "E810", f"'{out_dir}' exists and is not a folder",
             "give a folder for the site with -o")
    try:
        listed = os.path.isdir(target) and os.listdir(target)
    except OSError as e:
        fail(where, "E810", f"cannot read the folder '{out_dir}': {e.strerror}")
    if listed and \
            not os.path.isfile(os.path.join(target, SITE_MARKER)):
        fail(where, "E810", f"'{out_dir}' is a folder that drillbook render did not write",
             "render into a new or empty folder; a site drillbook wrote is replaced as a whole")
    return target


def _write_atomically(target: str, files: dict) -> None:
    """Every file into a temporary folder beside ``target``, then swapped in by one rename
    (``atomic.swap_in``); a folder that cannot be written is a located E810."""
    try:
        _write_into(target, files)
    except OSError as e:
        fail(Loc("<command line>"), "E810", f"cannot write the site to '{target}': "
             f"{e.strerror or e}", "render into a folder you can write")


def _write_into(target: str, files: dict) -> None:
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".render-", dir=parent)
    try:
        for rel, text in files.items():
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        os.chmod(tmp, 0o755)
        swap_in(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def render_site(model, out_dir: str, lang: str | None = None, variant_model=None,
                diff: dict | None = None, unexercised=None) -> list[str]:
    """Write the review site of ``model`` into ``out_dir``; return the paths written.

    ``variant_model``: a variant's model (its ``.base`` is the rulebook it patches; it may
    stand for several variants applied in order); a ``redline.html`` then shows its
    changes, and the odds of ``diff`` (``diff.semantic_diff`` of the variant) if given.
    If ``model`` itself is a variant and no ``variant_model`` is given, ``model`` is taken
    as the variant too.  ``unexercised``: places (Locs or ``(path, line, col)``, a set or a
    mapping to what was never seen) to mark as not exercised by any example.  Raises ``DrillError`` (writing nothing) for an unknown
    language or an ``out_dir`` that is a file or a folder this function did not write."""
    if variant_model is None and getattr(model, "base", None) is not None:
        variant_model = model
    languages = list(getattr(model, "languages", []) or [])
    from ..phrases import LANGUAGES      # --lang means the same on every command
    if lang is not None and languages and lang not in languages and lang not in LANGUAGES:
        fail(Loc("<command line>"), "E810", f"this rulebook has no labels in '{lang}'",
             f"its languages: {', '.join(languages)}")
    target = _check_out_dir(out_dir)
    files = _render_files(model, lang, variant_model, diff, unexercised)
    _write_atomically(target, files)
    return [os.path.join(out_dir, rel) for rel in files]


def _render_files(model, lang, variant_model, diff, unexercised) -> dict:
    """Every file of the site, in memory: name -> text."""
    sources = _Sources()
    hl = _Highlighter()
    files, site = _render_pages(model, lang, hl, sources, variant_model is not None,
                                unexercised)
    if variant_model is not None:
        base = getattr(variant_model, "base", None) or model
        base_site = site if base is model else _prepare(base, lang, sources)[0]
        var_site = _prepare(variant_model, lang, sources)[0]
        files["redline.html"] = _redline(variant_model, base, lang, hl, sources, base_site,
                                         var_site, diff)
    files.update(index_files(site))
    files["search.js"] = static("search.js")
    files["style.css"] = static("style.css")
    files["pygments.css"] = hl.style + "\n"
    files[SITE_MARKER] = "written by drillbook render; the whole folder is replaced on re-render\n"
    for rel, text in files.items():            # valid UTF-8 or nothing
        text.encode("utf-8")
    return files
