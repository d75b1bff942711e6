"""A state file read by libyaml gives the same nodes, values and marks as PyYAML's own
reader (state.py reads good files with libyaml, refused ones again with PyYAML)."""
from __future__ import annotations

import pathlib

import pytest
import yaml

from drillbook import state
from drillbook.errors import DrillError

ROOT = pathlib.Path(__file__).resolve().parent.parent
STATES = sorted(ROOT.glob("rulebooks/**/states/*.yaml")) + sorted(ROOT.glob("rulebooks/**/*.json"))


def _shape(node):
    out = [(type(node).__name__, node.tag, node.start_mark.index, node.start_mark.line,
            node.start_mark.column, node.end_mark.index)]
    if isinstance(node, yaml.ScalarNode):
        out.append(node.value)
    else:
        for item in node.value:
            for part in (item if isinstance(item, tuple) else (item,)):
                out += _shape(part)
    return out


@pytest.mark.skipif(state._FAST is None, reason="PyYAML was built without libyaml")
@pytest.mark.parametrize("path", STATES, ids=lambda p: p.name)
def test_libyaml_reads_every_bundled_state_as_pyyaml_does(path):
    text = path.read_text(encoding="utf-8")
    assert _shape(state._compose(text, str(path))) == _shape(yaml.compose(text, Loader=yaml.SafeLoader))


def test_a_state_libyaml_refuses_is_reported_as_pyyaml_reports_it(tmp_path, monkeypatch):
    bad = "Unit:\n  u1: {at: [1, 2}\n"
    with pytest.raises(yaml.YAMLError) as pure:
        yaml.compose(bad, Loader=yaml.SafeLoader)
    with pytest.raises(yaml.YAMLError) as ours:
        state._compose(bad, "bad.yaml")
    assert str(ours.value) == str(pure.value)


def test_too_deep_a_state_is_refused_whichever_reader(monkeypatch):
    deep = "a: " + "[" * 150 + "]" * 150 + "\n"
    state._TEXTS["deep.yaml"] = deep
    for fast in (state._FAST, None):
        monkeypatch.setattr(state, "_FAST", fast)
        with pytest.raises(DrillError) as e:
            state._compose(deep, "deep.yaml")
        (d,) = e.value.diagnostics
        assert (d.code, d.loc.line, d.loc.col) == ("E524", 1, 103)   # the mapping is level 1, the 100th "[" level 101
