"""Section 7, writes (issue 13): what a save costs the screen, and how fast the outbox empties.

`write-bench` (release) builds a session as the executable does, on the built-in service in-process:
* save → row on screen: a change handed to the fetcher as the form does, until a presented frame of the
  Car list (headless terminal) shows it; 200 saves at 0 and at 300 ms latency (the write is still on the wire);
* flush: 1,000 changes to 1,000 different people queued at once over 100 ms latency, sent in $batches of 100 as
  the fetcher does where the service takes them (issue 34), 8 requests at a time as it does where one does not, and
  one at a time; writes per second and requests on the wire each, and the ratios to one at a time;
* refresh: a 10,000-row cached list after 100 changes and 10 deletions on the service, by the list's delta link and
  by reading its pages again, at 100 ms latency: seconds from `r` to an idle fetcher, bytes and requests each;
* creates: 100 cars, each added among a different person's cars (the car and the ownership linking it), at 100 ms
  latency, in $batches (each car with its ownership in one changeset) and one request at a time; seconds and
  requests on the wire, every link checked in the service's store.
"""
from common import log, run_release_bench


def section():
    log("writes: save → frame, outbox flush")
    return run_release_bench("write-bench", timeout=900)
