#!/usr/bin/env python3
"""A work-order service served by odatapy (PyPI) on loopback, for the `annotated` section: 400 work orders of 12
data properties and a level, described (`annotated`) by a UI.LineItem of all 12 with labels, four of them
coloured by UI.Criticality through the level (and the status property by the same path), a UI.HeaderInfo and
a UI.PresentationVariant — or (`plain`) by nothing, the baseline.

    python annotated_service.py PORT annotated|plain    # serves http://127.0.0.1:PORT/odata/ until killed
"""
import signal
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from odatapy.data import Entity, ValueType
from odatapy.edm.annotations import Collection, Path, PathKind, PropertyValue, Record, to_expression
from odatapy.edm.csdl import (
    CsdlAbstractEdmProvider, CsdlAnnotation, CsdlEntityContainer, CsdlEntitySet, CsdlEntityType, CsdlProperty,
    CsdlPropertyRef, CsdlSchema)
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor

NS = "Works"
UI = "com.sap.vocabularies.UI.v1."
FIELDS = [("orderNo", "Edm.String", "Order"), ("status", "Edm.String", "Status"),
          ("priority", "Edm.String", "Priority"), ("site", "Edm.String", "Site"), ("asset", "Edm.String", "Asset"),
          ("technician", "Edm.String", "Technician"), ("opened", "Edm.String", "Opened"),
          ("due", "Edm.String", "Due"), ("hours", "Edm.Int32", "Hours"), ("parts", "Edm.Int32", "Parts"),
          ("cost", "Edm.Int32", "Cost"), ("note", "Edm.String", "Note")]
COLOURED = {"status", "priority", "due", "cost"}


class Schema(CsdlAbstractEdmProvider):
    def __init__(self, annotated):
        self.annotated = annotated

    def get_schemas(self):
        properties = [CsdlProperty(name="workOrderID", type="Edm.Int32", nullable=False)]
        properties += [CsdlProperty(name=name, type=kind) for name, kind, _ in FIELDS]
        properties.append(CsdlProperty(name="level", type="Edm.Int32"))
        order = CsdlEntityType(name="WorkOrder", key=[CsdlPropertyRef(name="workOrderID")], properties=properties)
        if self.annotated:
            level = Path("level")
            properties[2].annotations = [CsdlAnnotation(term=UI + "Criticality", value=level)]
            fields = []
            for name, _, label in FIELDS:
                values = [PropertyValue("Value", Path(name)), PropertyValue("Label", to_expression(label))]
                if name in COLOURED:
                    values.append(PropertyValue("Criticality", level))
                fields.append(Record(type=UI + "DataField", property_values=values))
            order.annotations = [
                CsdlAnnotation(term=UI + "LineItem", value=Collection(items=fields)),
                CsdlAnnotation(term=UI + "HeaderInfo", value=Record(type=UI + "HeaderInfoType", property_values=[
                    PropertyValue("TypeName", to_expression("Work order")),
                    PropertyValue("TypeNamePlural", to_expression("Work orders")),
                    PropertyValue("Title", Record(type=UI + "DataField", property_values=[
                        PropertyValue("Value", Path("orderNo"))]))])),
                CsdlAnnotation(term=UI + "PresentationVariant", value=Record(property_values=[
                    PropertyValue("SortOrder", Collection(items=[Record(property_values=[
                        PropertyValue("Property", Path("orderNo", PathKind.PropertyPath))])]))]))]
        container = CsdlEntityContainer(name="Container", entity_sets=[
            CsdlEntitySet(name="WorkOrder", type=NS + ".WorkOrder")])
        return [CsdlSchema(namespace=NS, entity_types=[order], entity_container=container)]


def rows():
    made = []
    sites = ["Leeds", "Porto", "Lyon", "Gdansk", "Turin", "Graz"]
    for index in range(400):
        values = {"workOrderID": index + 1, "orderNo": "WO-%05d" % (index + 1),
                  "status": ["Open", "In progress", "Waiting", "Done"][index % 4],
                  "priority": ["Low", "Normal", "High", "Urgent"][index * 7 % 4], "site": sites[index % 6],
                  "asset": "Pump %d" % (index % 37), "technician": "Tech %d" % (index % 23),
                  "opened": "2026-%02d-%02d" % (index % 12 + 1, index % 28 + 1),
                  "due": "2027-%02d-%02d" % (index * 5 % 12 + 1, index * 3 % 28 + 1), "hours": index % 40,
                  "parts": index % 9, "cost": 100 + index * 13 % 4000, "note": "Checked seals and bearings",
                  "level": [3, 0, 2, 1][index % 4]}
        entity = Entity()
        for name, value in values.items():
            entity.set_property(name, value, ValueType.PRIMITIVE,
                                "Edm.Int32" if isinstance(value, int) else "Edm.String")
        made.append(entity)
    return made


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


def main():
    port, variant = int(sys.argv[1]), sys.argv[2]
    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(Schema(variant == "annotated")))
    store = InMemoryDataStore()
    store.set_entities("WorkOrder", rows())
    handler.register(InMemoryProcessor(store))
    server = make_server("127.0.0.1", port, ODataWSGIApp(handler, mount_path="/odata"), server_class=Server,
                         handler_class=QuietHandler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("serving http://127.0.0.1:%d/odata/" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
