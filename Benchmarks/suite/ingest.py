"""Section 3, ingest: entities/s from recorded v2 payloads, CarDealer vs pyodata, same bytes, same run.

Recording: `cardealer serve --people 10000 --page-size 100`; `$metadata` and the 100 pages
`Person?$expand=PersonCar/Car&$top=100&$skip=…&$inlinecount=allpages` (the requests the browser makes
for a list, with the next screen expanded) are saved under Benchmarks/.work/ingest/payloads.
* CarDealer: `ingest-bench DIR 5` — decode (typed by `$metadata`), normalise into flat rows and commit
  into a fresh SQLite cache file, one response per write; best of 5. Pipelined is how the fetcher runs
  (up to 4 jobs decode on Swift's pool while the cache's one writer commits, queued writes together) and
  is the headline figure; serial (one thread, one transaction per page) and write-only are shown beside it.
* pyodata: `pyodata_parse.py DIR 3` in the suite's venv — pyodata's client parses the same `$metadata`
  and turns each recorded page into its typed entity proxies (nested expansions included) through its
  own response handling, the bytes served from memory by a stub HTTP session; best of 3. It stores
  nothing, so the comparison favours pyodata.
Entities are counted the same way on both sides: every object with `__metadata` (nested ones included).

OData v4 beside v2 (issue 19): the same 100 pages recorded from the service's v4 root
(`Person?$expand=PersonCar($expand=Car)&$top=100&$skip=…&$count=true`, the same entities in v4's shape) go
through the same `ingest-bench`; TripPin-shaped v4 pages (issue 37: derived types named by `@odata.type`, enums,
complex values and collections of them, dynamic properties of an open type; written by `trippin.py`, 10,000 people
in 100 pages) go through it too, one thread, beside the plain figures; and `metadata-bench 2000` parses a generated CSDL v4 `$metadata` with 2,000
entity types (best of 5, with the peak memory it took).
"""
import json
import os
import subprocess
import sys
import urllib.request

import trippin
from common import BENCH_BINARIES, REPO, WORK, Server, fresh_dir, log

VENV = os.path.join(REPO, "Benchmarks", ".venv")
PEOPLE = 10000
PAGE = 100


def record():
    directory = fresh_dir("ingest", "payloads")
    directory4 = fresh_dir("ingest", "payloads-v4")
    data = os.path.join(WORK, "data", "people-%d.sqlite" % PEOPLE)
    os.makedirs(os.path.dirname(data), exist_ok=True)
    server = Server(["--people", str(PEOPLE), "--data", data, "--page-size", str(PAGE)])
    try:
        def get(path, accept, root=None):
            request = urllib.request.Request((root or server.root) + path, headers={"Accept": accept})
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.read()
        with open(os.path.join(directory, "metadata.xml"), "wb") as out:
            out.write(get("$metadata", "application/xml"))
        with open(os.path.join(directory4, "metadata.xml"), "wb") as out:
            out.write(get("$metadata", "application/xml", server.root4))
        for index in range(PEOPLE // PAGE):
            path = "Person?$expand=PersonCar/Car&$top=%d&$skip=%d&$inlinecount=allpages" % (PAGE, index * PAGE)
            with open(os.path.join(directory, "page-%04d.json" % index), "wb") as out:
                out.write(get(path, "application/json"))
            path4 = "Person?$expand=PersonCar($expand=Car)&$top=%d&$skip=%d&$count=true" % (PAGE, index * PAGE)
            with open(os.path.join(directory4, "page-%04d.json" % index), "wb") as out:
                out.write(get(path4, "application/json;odata.metadata=minimal", server.root4))
    finally:
        server.stop()
    return directory, directory4


def section():
    log("ingest: recording payloads")
    directory, directory4 = record()
    log("ingest: CarDealer")
    ours = json.loads(subprocess.run([os.path.join(BENCH_BINARIES, "ingest-bench"), directory, "5"],
                                     capture_output=True, text=True, check=True, timeout=600).stdout)
    log("ingest: CarDealer, the same pages in OData v4")
    ours4 = json.loads(subprocess.run([os.path.join(BENCH_BINARIES, "ingest-bench"), directory4, "5"],
                                      capture_output=True, text=True, check=True, timeout=600).stdout)
    log("ingest: CarDealer, TripPin-shaped v4 pages (derived types, complex and open properties)")
    directory_trippin = fresh_dir("ingest", "payloads-trippin")
    trippin.write(directory_trippin)
    ours_trippin = json.loads(subprocess.run(
        [os.path.join(BENCH_BINARIES, "ingest-bench"), directory_trippin, "5", "People"],
        capture_output=True, text=True, check=True, timeout=600).stdout)
    log("ingest: CSDL v4 $metadata with 2,000 entity types")
    annotations = os.path.join(directory, "annotations.xml")
    metadata = json.loads(subprocess.run([os.path.join(BENCH_BINARIES, "metadata-bench"), "2000", "5",
                                          annotations], capture_output=True, text=True, check=True, timeout=600).stdout)
    # The baseline beside it: the same annotation document only read by Python's ElementTree (best of 3).
    log("ingest: the annotation document read by ElementTree")
    baseline = json.loads(subprocess.run([sys.executable, "-c",
                                          "import json,sys,time,xml.etree.ElementTree as E\n"
                                          "best=min((lambda t:(E.parse(sys.argv[1]),time.perf_counter()-t)[1])(time.perf_counter()) for _ in range(3))\n"
                                          "print(json.dumps({'ms': best*1000}))", annotations],
                                         capture_output=True, text=True, check=True, timeout=600).stdout)
    log("ingest: pyodata")
    theirs = json.loads(subprocess.run([os.path.join(VENV, "bin", "python"),
                                        os.path.join(REPO, "Benchmarks", "suite", "pyodata_parse.py"), directory, "3"],
                                       capture_output=True, text=True, check=True, timeout=600).stdout)
    return {"cardealer": ours, "pyodata": theirs, "cardealer_v4": ours4, "cardealer_trippin": ours_trippin,
            "metadata_v4": metadata,
            "annotations_baseline_ms": baseline["ms"],
            "ratio": ours["pipelined_entities_per_s"] / theirs["entities_per_s"],
            "serial_ratio": ours["ingest_entities_per_s"] / theirs["entities_per_s"]}
