"""Re-run every `$ drillbook ...` command shown in the walkthroughs and paste its real output.

    python docs/regenerate.py docs/walkthrough-*.md

A command on a scratch copy under /tmp that is no longer there is left as it is.  Run from the repository root; the walkthroughs show paths relative to it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

FENCE = re.compile(r"^```")


def run(command: str) -> str:
    """Run the command as a reader would type it (pipes and && included), with the
    drillbook of this checkout."""
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env)
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
        scratch = [w for w in command.split() if w.startswith("/tmp/")]
        if scratch and not all(os.path.exists(w) for w in scratch):
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
