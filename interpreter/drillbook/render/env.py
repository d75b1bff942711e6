"""Render stage, the templates: one Jinja2 environment, autoescaping every value.

The pages are drawn by the templates in ``templates/`` (package data) from plain data the
other modules of ``render/`` prepare; the only HTML that reaches a template unescaped is
Pygments' highlighted source (``Markup``).  The stylesheet and the search script are
``static/`` files copied into the site as they are.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from jinja2 import Environment, FunctionLoader, StrictUndefined


def _load(name: str):
    text = resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")
    return text, None, lambda: True


@lru_cache(maxsize=None)
def environment() -> Environment:
    return Environment(loader=FunctionLoader(_load), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render(name: str, **data) -> str:
    return environment().get_template(name).render(**data)


def static(name: str) -> str:
    """A file of ``static/`` (the stylesheet, the search script), as text."""
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")
