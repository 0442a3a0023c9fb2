#!/usr/bin/env python3
"""An OData v2 service with function imports, served by pyslet (PyPI, `pyslet==0.7.20170805`), for issue 36's
check of v2 function imports against a server we did not write (EndToEndTests.IndependentFunctionImportTests).

    python v2_function_imports.py PORT    # service root http://127.0.0.1:PORT/

The schema and data are ours, written for the tests; what the server does with them is pyslet's. A car garage:
`Cars`; `CarsOfColour` (GET, the cars of one colour, a collection of entities of `Cars`); `Repaint` (POST, a car's
colour changed; it answers the colour the car had and the one it has). `/_test/repaints?carID=N` lists the colours
each Repaint of that car asked for, in order: the tests' check that a call ran once.

What trying pyslet taught (session 24): it runs a function import while it resolves the path, whatever the method,
and then answers by what the call returned. A POST to one that returns an entity is refused after it has run (400
"Method not allowed: POST not supported here", the car repainted all the same); a collection of values is answered
whatever the method. So Repaint returns its colours. pyslet also answers
`$metadata` below its root (`Cars/$metadata`), and its pages carry a `__next` link after a short last page.
"""

import json
import sys
import urllib.parse
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pyslet.odata2.core as core
import pyslet.odata2.csdl as edm
import pyslet.odata2.memds as memds
import pyslet.odata2.metadata as edmx
import pyslet.odata2.server as server

SCHEMA = b"""<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
 xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
<edmx:DataServices m:DataServiceVersion="2.0">
<Schema Namespace="Garage" xmlns="http://schemas.microsoft.com/ado/2006/04/edm">
<EntityType Name="Car"><Key><PropertyRef Name="carID"/></Key>
<Property Name="carID" Type="Edm.Int32" Nullable="false"/><Property Name="make" Type="Edm.String"/>
<Property Name="colour" Type="Edm.String"/></EntityType>
<EntityContainer Name="Garage" m:IsDefaultEntityContainer="true">
<EntitySet Name="Cars" EntityType="Garage.Car"/>
<FunctionImport Name="CarsOfColour" ReturnType="Collection(Garage.Car)" EntitySet="Cars" m:HttpMethod="GET">
<Parameter Name="colour" Type="Edm.String" Mode="In"/></FunctionImport>
<FunctionImport Name="Repaint" ReturnType="Collection(Edm.String)" m:HttpMethod="POST">
<Parameter Name="carID" Type="Edm.Int32" Mode="In"/><Parameter Name="colour" Type="Edm.String" Mode="In"/>
</FunctionImport>
</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>"""


def service(port):
    calls = []
    document = edmx.Document()
    document.read(SCHEMA)
    memds.InMemoryEntityContainer(document.root.DataServices["Garage.Garage"])
    cars = document.root.DataServices["Garage.Garage.Cars"]
    with cars.open() as collection:
        for key, make, colour in [(1, "Ford", "red"), (2, "Honda", "blue"), (3, "Skoda", "red")]:
            car = collection.new_entity()
            car.set_key(key)
            car["make"].set_from_value(make)
            car["colour"].set_from_value(colour)
            collection.insert_entity(car)

    class Repainted(core.FunctionCollection):
        """Repaint's answer: the colour the car had, then the one it has. The car is repainted when the call is
        made (pyslet runs a function import while it resolves the path), once per call."""

        def __init__(self, function, params):
            super().__init__(function, params)
            with cars.open() as collection:
                car = collection[params["carID"].value]
                self.colours = [car["colour"].value, params["colour"].value]
                car["colour"].set_from_value(params["colour"].value)
                collection.update_entity(car)
            calls.append({"carID": params["carID"].value, "colour": params["colour"].value})

        def __iter__(self):
            for colour in self.colours:
                value = edm.SimpleValue.from_type(edm.SimpleType.String)
                value.set_from_value(colour)
                yield value

    class OfColour(core.FunctionEntityCollection):
        """The cars of one colour: what CarsOfColour answers, read from the cars when it is iterated."""

        def itervalues(self):
            colour = self.params["colour"].value
            with cars.open() as collection:
                found = [car for car in collection.itervalues() if car["colour"].value == colour]
            return self.order_entities(self.expand_entities(self.filter_entities(iter(found))))

    document.root.DataServices["Garage.Garage.CarsOfColour"].bind(OfColour)
    document.root.DataServices["Garage.Garage.Repaint"].bind(Repainted)
    app = server.Server(serviceRoot="http://127.0.0.1:%d/" % port)
    app.set_model(document)

    def test_or_service(environ, start_response):
        """`/_test/repaints?carID=N`: each Repaint the service ran on that car, in order (for the tests' checks that a
        call ran once); everything else is pyslet's."""
        if environ.get("PATH_INFO") != "/_test/repaints":
            return app(environ, start_response)
        query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
        car = int(query.get("carID", ["0"])[0])
        body = json.dumps([call["colour"] for call in calls if call["carID"] == car]).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    return test_or_service


class Quiet(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1])
    make_server("127.0.0.1", port, service(port), handler_class=Quiet).serve_forever()
