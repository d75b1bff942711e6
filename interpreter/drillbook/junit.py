"""CLI: the results of ``drillbook test`` as JUnit XML, for CI servers.

One ``testsuite`` per rulebook, one ``testcase`` per example (classname: the rulebook and
the example's section), a ``failure`` with every failed expectation; a rulebook that does not
check is one ``testcase`` with an ``error``.  Written atomically.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from .errors import Loc, fail


def junit_xml(results, broken) -> str:
    suites = ET.Element("testsuites", name="drillbook")
    by_path: dict[str, list] = {}
    for path, r in results:
        by_path.setdefault(path, []).append(r)
    for path, rs in by_path.items():
        suite = ET.SubElement(suites, "testsuite", name=path, tests=str(len(rs)),
                              failures=str(sum(1 for r in rs if not r.passed)), errors="0")
        for r in rs:
            ex = r.example
            sec = ex.section.number if ex.section else "?"
            case = ET.SubElement(suite, "testcase", name=ex.name, classname=f"{path}.§{sec}",
                                 file=ex.loc.path, line=str(ex.loc.line))
            if not r.passed:
                text = "\n".join(f"{loc}: {msg}" for loc, msg in r.failures)
                first = r.failures[0][1].split("\n")[0] if r.failures else "failed"
                ET.SubElement(case, "failure", message=first).text = text
    for path, e in broken:
        suite = ET.SubElement(suites, "testsuite", name=path, tests="1", failures="0",
                              errors="1")
        case = ET.SubElement(suite, "testcase", name="check", classname=path)
        ET.SubElement(case, "error", message=e.diagnostics[0].message).text = e.render()
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


def write_junit(path: str, results, broken, where: Loc) -> None:
    from .fmt import write_atomically
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        fail(where, "E010", f"no folder for '{path}'")
    try:
        write_atomically(path, junit_xml(results, broken))
    except OSError as e:
        fail(where, "E010", f"cannot write '{path}': {e.strerror}")
