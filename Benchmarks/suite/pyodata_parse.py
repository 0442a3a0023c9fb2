"""pyodata (PyPI) parsing recorded OData v2 pages: prints one JSON object with the best round.

Usage: pyodata_parse.py DIR [ROUNDS]; DIR holds metadata.xml and page-*.json (see ingest.py).
The pages are served from memory by a stub session, so only pyodata's own work is timed: JSON
parsing, typing properties by $metadata, and building entity proxies with their expansions.
"""
import importlib.metadata
import json
import os
import sys
import time

import pyodata
import requests

ROOT = "http://127.0.0.1/CarDealer.svc/"


class StubSession:
    """Answers pyodata's GETs with recorded bytes: $metadata, then the next queued page."""

    def __init__(self, metadata):
        self.metadata = metadata
        self.queue = []
        self.headers = {}

    def _response(self, body, content_type):
        response = requests.Response()
        response.status_code = 200
        response._content = body
        response.headers["Content-Type"] = content_type
        response.encoding = "utf-8"
        return response

    def get(self, url, *args, **kwargs):
        return self.request("GET", url)

    def request(self, method, url, *args, **kwargs):
        if "$metadata" in url:
            return self._response(self.metadata, "application/xml")
        return self._response(self.queue.pop(0), "application/json")


def count_entities(value):
    if isinstance(value, dict):
        return (1 if "__metadata" in value else 0) + sum(count_entities(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_entities(v) for v in value)
    return 0


def main():
    directory = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with open(os.path.join(directory, "metadata.xml"), "rb") as handle:
        metadata = handle.read()
    names = sorted(n for n in os.listdir(directory) if n.startswith("page-") and n.endswith(".json"))
    pages = []
    for name in names:
        with open(os.path.join(directory, name), "rb") as handle:
            pages.append(handle.read())
    entities = sum(count_entities(json.loads(page)) for page in pages)
    session = StubSession(metadata)
    client = pyodata.Client(ROOT, session)
    best = None
    parsed = 0
    for _ in range(rounds):
        start = time.perf_counter()
        parsed = 0
        for index, page in enumerate(pages):
            session.queue.append(page)
            result = (client.entity_sets.Person.get_entities().expand("PersonCar/Car")
                      .top(100).skip(index * 100).execute())
            for person in result:
                parsed += 1
                for link in person.PersonCar:
                    parsed += 1
                    if link.Car is not None:
                        parsed += 1
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    print(json.dumps({"pages": len(pages), "bytes": sum(map(len, pages)), "entities": entities,
                      "proxies_walked": parsed, "seconds": best, "entities_per_s": entities / best,
                      "pyodata": importlib.metadata.version("pyodata")}))


if __name__ == "__main__":
    main()
