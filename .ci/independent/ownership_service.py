#!/usr/bin/env python3
"""An OData v4 service of people, cars and the ownerships that join them, served by odatapy (PyPI) on loopback.

The schema and seed rows are ours; what the service does with requests (keys, links, ETags, $batch) is odatapy's
own: its in-memory processor, unchanged. Every entity carries a weak ETag, so changes and deletes need If-Match.
A POST must give the entity's key (odatapy computes none), as the v4 service in issue 32 did.

    python ownership_service.py PORT      # serves http://127.0.0.1:PORT/odata/ until killed
"""

import signal
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from odatapy.data import Entity, ValueType
from odatapy.edm.csdl import (
    CsdlAbstractEdmProvider,
    CsdlEntityContainer,
    CsdlEntitySet,
    CsdlEntityType,
    CsdlNavigationProperty,
    CsdlNavigationPropertyBinding,
    CsdlProperty,
    CsdlPropertyRef,
    CsdlSchema,
)
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor
from odatapy.server.processor import CustomETagSupport

NS = "Ownership"


def key_type(name, key, fields, navigations):
    properties = [CsdlProperty(name=key, type="Edm.Int32", nullable=False)]
    properties += [CsdlProperty(name=field, type=kind) for field, kind in fields]
    return CsdlEntityType(
        name=name, key=[CsdlPropertyRef(name=key)], properties=properties, navigation_properties=navigations)


class Schema(CsdlAbstractEdmProvider):
    def get_schemas(self):
        nav = CsdlNavigationProperty
        person = key_type(
            "Person", "personID", [("firstName", "Edm.String"), ("lastName", "Edm.String")],
            [nav(name="PersonCar", type=NS + ".PersonCar", collection=True, partner="Person"),
             # Many to many with no link entity between: a person's friends.
             nav(name="Friends", type=NS + ".Person", collection=True, partner="Friends")])
        car = key_type(
            "Car", "carID", [("make", "Edm.String"), ("model", "Edm.String")],
            [nav(name="PersonCar", type=NS + ".PersonCar", collection=True, partner="Car")])
        link = key_type(
            "PersonCar", "personCarID", [("personID", "Edm.Int32"), ("carID", "Edm.Int32")],
            [nav(name="Person", type=NS + ".Person", partner="PersonCar"),
             nav(name="Car", type=NS + ".Car", partner="PersonCar")])
        bind = CsdlNavigationPropertyBinding
        container = CsdlEntityContainer(name="Container", entity_sets=[
            CsdlEntitySet(name="Person", type=NS + ".Person",
                          navigation_property_bindings=[bind(path="PersonCar", target="PersonCar"),
                                                        bind(path="Friends", target="Person")]),
            CsdlEntitySet(name="Car", type=NS + ".Car",
                          navigation_property_bindings=[bind(path="PersonCar", target="PersonCar")]),
            CsdlEntitySet(name="PersonCar", type=NS + ".PersonCar",
                          navigation_property_bindings=[bind(path="Person", target="Person"),
                                                        bind(path="Car", target="Car")]),
        ])
        return [CsdlSchema(namespace=NS, entity_types=[person, car, link], entity_container=container)]


class EveryEntityHasAnETag(CustomETagSupport):
    def has_etag(self, entity_set_or_singleton):
        return True


def entity(**values):
    made = Entity()
    for name, value in values.items():
        made.set_property(name, value, ValueType.PRIMITIVE, "Edm.Int32" if isinstance(value, int) else "Edm.String")
    made.etag = 'W/"1"'
    return made


def seed(store):
    people = {1: entity(personID=1, firstName="Alice", lastName="Smith"),
              2: entity(personID=2, firstName="Bob", lastName="Jones"),
              3: entity(personID=3, firstName="Carol", lastName="White")}
    cars = {1: entity(carID=1, make="Toyota", model="Corolla"),
            2: entity(carID=2, make="Ford", model="Focus"),
            3: entity(carID=3, make="Honda", model="Civic"),
            4: entity(carID=4, make="Tesla", model="Model 3")}
    # The Corolla has two owners, Alice and Bob.
    ownerships = [(1, 1, 1), (2, 2, 1), (3, 1, 2), (4, 3, 4)]
    links = {key: entity(personCarID=key, personID=person, carID=car) for key, person, car in ownerships}
    store.set_entities("Person", list(people.values()))
    store.set_entities("Car", list(cars.values()))
    store.set_entities("PersonCar", list(links.values()))
    # Alice is friends with Bob and with Carol.
    for one, other in [(1, 2), (1, 3)]:
        store.add_relation("Person", repr(one), "Friends", people[other])
        store.add_relation("Person", repr(other), "Friends", people[one])
    # odatapy keeps links in a table of their own, beside the foreign keys: both directions are seeded.
    for key, person, car in ownerships:
        store.add_relation("Person", repr(person), "PersonCar", links[key])
        store.add_relation("Car", repr(car), "PersonCar", links[key])
        store.set_relation("PersonCar", repr(key), "Person", [people[person]])
        store.set_relation("PersonCar", repr(key), "Car", [cars[car]])


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        sys.stderr.write("%s\n" % (format % args))


def wsgi_app():
    """The service as a WSGI application mounted at /odata (sign_in_service.py puts it behind OAuth 2.0)."""
    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(Schema()))
    store = InMemoryDataStore()
    seed(store)
    handler.register(InMemoryProcessor(store))
    handler.register(EveryEntityHasAnETag())
    return ODataWSGIApp(handler, mount_path="/odata")


def main():
    port = int(sys.argv[1])
    app = wsgi_app()
    server = make_server("127.0.0.1", port, app, server_class=Server, handler_class=QuietHandler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("serving http://127.0.0.1:%d/odata/" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
