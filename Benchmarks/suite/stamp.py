"""Drains a pty master (fd argv[1]) and writes `MONOTONIC_SECONDS BYTES` per chunk to argv[2].

A process of its own, so that nothing else (no other thread holding Python's lock) delays a read:
each chunk is stamped within a fraction of a millisecond of the browser writing it.
"""
import os
import sys
import time

fd = int(sys.argv[1])
with open(sys.argv[2], "w") as out:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out.write("%.6f %d\n" % (time.monotonic(), len(chunk)))
        out.flush()
