"""Section 6, cache: what screens read and what the cache layer costs, with 1,000,000 rows cached.

`cache-bench` (release) ingests 400 generated pages of people with their cars expanded, fills a
1,000,000-row list, then reads 2,000 windows of 50 rows at random positions and 5,000 entities by
random key, each timed alone; its RSS is read from /proc/self/status at the end. The binary links
the cache and the fetcher (EntityCache, Sync and its HTTP client) but not the demo server, so the
memory figure is theirs.
"""
from common import log, run_release_bench


def section():
    log("cache: 1,000,000 rows")
    return run_release_bench("cache-bench", timeout=600)
