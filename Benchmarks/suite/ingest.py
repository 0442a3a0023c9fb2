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
"""
import json
import os
import subprocess
import urllib.request

from common import REPO, WORK, Server, fresh_dir, log

VENV = os.path.join(REPO, "Benchmarks", ".venv")
PEOPLE = 10000
PAGE = 100


def record():
    directory = fresh_dir("ingest", "payloads")
    data = os.path.join(WORK, "data", "people-%d.sqlite" % PEOPLE)
    os.makedirs(os.path.dirname(data), exist_ok=True)
    server = Server(["--people", str(PEOPLE), "--data", data, "--page-size", str(PAGE)])
    try:
        def get(path, accept):
            request = urllib.request.Request(server.root + path, headers={"Accept": accept})
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.read()
        with open(os.path.join(directory, "metadata.xml"), "wb") as out:
            out.write(get("$metadata", "application/xml"))
        for index in range(PEOPLE // PAGE):
            path = "Person?$expand=PersonCar/Car&$top=%d&$skip=%d&$inlinecount=allpages" % (PAGE, index * PAGE)
            with open(os.path.join(directory, "page-%04d.json" % index), "wb") as out:
                out.write(get(path, "application/json"))
    finally:
        server.stop()
    return directory


def section():
    log("ingest: recording payloads")
    directory = record()
    log("ingest: CarDealer")
    ours = json.loads(subprocess.run([os.path.join(REPO, ".build", "release", "ingest-bench"), directory, "5"],
                                     capture_output=True, text=True, check=True, timeout=600).stdout)
    log("ingest: pyodata")
    theirs = json.loads(subprocess.run([os.path.join(VENV, "bin", "python"),
                                        os.path.join(REPO, "Benchmarks", "suite", "pyodata_parse.py"), directory, "3"],
                                       capture_output=True, text=True, check=True, timeout=600).stdout)
    return {"cardealer": ours, "pyodata": theirs,
            "ratio": ours["pipelined_entities_per_s"] / theirs["entities_per_s"],
            "serial_ratio": ours["ingest_entities_per_s"] / theirs["entities_per_s"]}
