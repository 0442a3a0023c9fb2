"""Section 6, cache: what screens read and what the cache layer costs, with 1,000,000 rows cached.

`cache-bench` (release) ingests 400 generated pages of people with their cars expanded, fills a
1,000,000-row list, then reads 2,000 windows of 50 rows at random positions and 5,000 entities by
random key, each timed alone; its RSS is read from /proc/self/status at the end. The binary links
the cache and the fetcher (EntityCache, Sync and its HTTP client) but not the demo server, so the
memory figure is theirs.
"""
import json
import os
import subprocess

from common import REPO, log


def section():
    log("cache: 1,000,000 rows")
    done = subprocess.run([os.path.join(REPO, ".build", "release", "cache-bench")],
                          capture_output=True, text=True, check=True, timeout=600)
    line = next(l for l in done.stdout.splitlines() if l.startswith("json: "))
    return json.loads(line[len("json: "):])
