"""Reads stdin (a tmux pane's output, from `pipe-pane -O`) and writes `MONOTONIC_SECONDS BYTES` per chunk."""
import os
import sys
import time

with open(sys.argv[1], "w") as out:
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        out.write("%.6f %d\n" % (time.monotonic(), len(chunk)))
        out.flush()
