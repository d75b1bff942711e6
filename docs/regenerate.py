"""Re-run every `$ drillbook ...` command shown in the walkthroughs and paste its real output.

    python docs/regenerate.py docs/walkthrough-*.md

A command whose files are not in the repository (a scratch copy under /tmp) is left as it
is.  Run from the repository root; the walkthroughs show paths relative to it.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

FENCE = re.compile(r"^```")


def run(command: str) -> str:
    argv = shlex.split(command)[1:]          # after "drillbook"
    done = subprocess.run([sys.executable, "-m", "drillbook", *argv], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "100"})
    return (done.stdout + done.stderr).rstrip("\n")


def regenerate(path: str) -> bool:
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i, changed = [], 0, False
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith("$ drillbook "):
            continue
        old = []
        while i < len(lines) and not lines[i].startswith("$ ") and not FENCE.match(lines[i]):
            old.append(lines[i])
            i += 1
        command = line[2:]
        if "/tmp/" in command or any(p.startswith("/tmp") for p in shlex.split(command)):
            out.extend(old)
            continue
        new = run(command).split("\n")
        changed |= new != old
        out.extend(new)
    if changed:
        with open(path + ".tmp", "w", encoding="utf-8") as fh:
            fh.write("\n".join(out))
        os.replace(path + ".tmp", path)
    return changed


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(("updated " if regenerate(p) else "unchanged ") + p)
