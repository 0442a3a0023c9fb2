#!/usr/bin/env python3
"""Interop check: a third-party OData v2 client (pyodata) against `cardealer serve`.

Usage: python3 Scripts/pyodata-check.py http://127.0.0.1:PORT/CarDealer.svc/
Loads $metadata, lists each entity set, gets by key, follows a navigation, and runs the seed's
Person(1)?$expand=PersonCar,PersonCar/Car. Exits non-zero on the first failure.
"""
import sys

import pyodata
import requests

root = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/CarDealer.svc/"
session = requests.Session()
service = pyodata.Client(root, session)
sets = [es.name for es in service.schema.entity_sets]
print("entity sets:", ", ".join(sets))
for name in sets:
    entities = getattr(service.entity_sets, name).get_entities().top(3).execute()
    print(f"{name}: {len(entities)} of top 3")
person = service.entity_sets.Person.get_entity(1).execute()
print("Person(1):", person.firstName, person.lastName, person.ssn, person.createDate)
cars = person.nav("PersonCar").get_entities().execute()
print("Person(1)/PersonCar:", [pc.personCarID for pc in cars])
expanded = service.entity_sets.Person.get_entity(1).expand("PersonCar,PersonCar/Car").execute()
models = [pc.Car.model for pc in expanded.PersonCar]
print("Person(1)?$expand=PersonCar,PersonCar/Car ->", models)
assert models == ["Explorer", "Mustang"], models
print("pyodata check passed")
