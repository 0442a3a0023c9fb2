#!/usr/bin/env python3
"""WORK IN PROGRESS (issue 36, not wired into .ci/run yet): an OData v2 service with function imports, served by
pyslet (PyPI, `pip install pyslet==0.7.20170805`), for the one independent check issue 36 still lacks.

    python v2_function_imports.py PORT    # http://127.0.0.1:PORT/

The schema and data are ours, written for the tests; what the server does with them is pyslet's. A car garage:
`Cars`, the function import `CarsOfColour` (GET, a collection of cars) and `Repaint` (POST, one car). Found by
trying it (session 24): pyslet runs a function import while it resolves the path, whatever the method, and then
refuses a POST with 400 "Method not allowed: POST not supported here": the car is repainted all the same. A test
against it should expect that refusal as the service's sentence, nothing sent twice, and the change on the server.
Its list pages also carry a `__next` link after a short last page.
"""

import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

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
<FunctionImport Name="Repaint" ReturnType="Garage.Car" EntitySet="Cars" m:HttpMethod="POST">
<Parameter Name="carID" Type="Edm.Int32" Mode="In"/><Parameter Name="colour" Type="Edm.String" Mode="In"/>
</FunctionImport>
</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>"""


def service(port):
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

    def repaint(function, params):
        with cars.open() as collection:
            car = collection[params["carID"].value]
            car["colour"].set_from_value(params["colour"].value)
            collection.update_entity(car)
            return car

    # (CarsOfColour, a collection of entities, needs a FunctionEntityCollection: not written yet)
    document.root.DataServices["Garage.Garage.Repaint"].bind(repaint)
    app = server.Server(serviceRoot="http://127.0.0.1:%d/" % port)
    app.set_model(document)
    return app


class Quiet(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1])
    make_server("127.0.0.1", port, service(port), handler_class=Quiet).serve_forever()
