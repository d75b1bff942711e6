"""The VS Code extension's TextMate grammar, run by the engine VS Code uses: this runs
`node --test` on editor-support/vscode/test/, which tokenizes snippets and every bundled
rulebook with vscode-textmate on vscode-oniguruma.

It needs node (18 or later) and the extension's dev dependencies:

    npm ci --prefix editor-support/vscode

Locally a missing tool skips this test with the reason; in CI (CI=true) it fails.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editor-support" / "vscode"
INSTALL = "npm ci --prefix editor-support/vscode"


def _missing_tools() -> list[str]:
    missing = []
    node = shutil.which("node")
    if node is None:
        missing.append("node is not on PATH (install Node.js 18 or later)")
    else:
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
        m = re.match(r"v(\d+)\.", version.strip())
        if not m or int(m.group(1)) < 18:
            missing.append(f"node {version.strip() or '?'} is too old: node --test needs 18+")
    for package in ("vscode-textmate", "vscode-oniguruma"):
        if not (VSCODE / "node_modules" / package).is_dir():
            missing.append(f"editor-support/vscode/node_modules/{package} is missing "
                           f"(run from the repository root: {INSTALL})")
    return missing


def test_textmate_grammar_in_vscode_textmate():
    missing = _missing_tools()
    if missing:
        reason = "; ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the TextMate grammar tests, but {reason}")
        pytest.skip(reason)
    files = sorted(str(p) for p in (VSCODE / "test").glob("*.test.js"))
    assert files, "no editor-support/vscode/test/*.test.js"
    proc = subprocess.run(
        [shutil.which("node"), "--test", "--test-reporter=tap", *files],
        cwd=VSCODE, capture_output=True, text=True, encoding="utf-8", timeout=600)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-12000:]
    passed = re.search(r"^# pass (\d+)$", proc.stdout, re.M)
    failed = re.search(r"^# fail (\d+)$", proc.stdout, re.M)
    assert passed and failed, output[-4000:]
    assert int(failed.group(1)) == 0 and int(passed.group(1)) > 0, output[-12000:]
