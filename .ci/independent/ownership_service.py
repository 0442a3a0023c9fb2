#!/usr/bin/env python3
"""An OData v4 service of people, cars and the ownerships that join them, served by odatapy (PyPI) on loopback.

The schema and seed rows are ours; what the service does with requests (keys, links, ETags, $batch) is odatapy's
own: its in-memory processor, unchanged. Every entity carries a weak ETag, so changes and deletes need If-Match.
A POST must give the entity's key (odatapy computes none), as the v4 service in issue 32 did.

Two operations (issue 36): the unbound function CarsByMake(make) — the cars of that make, served by odatapy's
in-memory processor from the implementation registered here — and the action Repaint(make) bound to a car, which
sets its make and moves its ETag on (its make has the car's value help, and Skoda by default) (odatapy routes the call; what it does is ours, as a service's always is). And the action RegisterOwner(personID) bound to a car,
which makes an ownership of it by that person; its Common.SideEffects say the car's ownerships change. And an
action on the service, AddMake(name, country), and one on the list of cars, RenameMake(old, new).

The car set declares Capabilities.ChangeTracking (issue 34): a list read with `Prefer: odata.track-changes` comes
with odatapy's own delta link, and what it answers there is its own change log.

Two functions answer a value (issue 36): CountOfMake(make), how many cars of a make, and Car(k)/Ownership.Describe(),
a car's make and model as one text.

The dealership itself is a singleton, `Dealership` (issue 37).

Work orders are edited through drafts, as SAP CAP serves such a set (issue 36): their key holds IsActiveEntity, the
set's Common.DraftRoot names the actions draftEdit, draftPrepare and draftActivate (odatapy routes them; what they do,
copying a work order into its draft and back, is ours, written after CAP's documented behaviour), and the draft is
changed with odatapy's own PATCH. A new work order's draft is made by WorkOrderNew, the NewAction the DraftRoot names
(as SAP RAP names one). Work order 2 has a draft ALICE is editing: a change of it by anyone else is refused with 423,
as CAP refuses it.

A parts catalogue (`Part`, sixty rows) declares Capabilities.SearchRestrictions: `$search` is answered by odatapy's
own matching (issues 33 and 37).

A car's make has value help (issue 33): Common.ValueList names the Make set, the make written back from its name
(InOut) and its country shown beside it (DisplayOnly), and Common.ValueListWithFixedValues says no other make is
taken.

Inspections of cars say how good or bad their verdicts are with UI.Criticality (issue 33): the line item's data
field by a path to the level (`verdictCriticality`), and the property itself by the same path, as Fiori apps do.
Their type declares a UI.Chart (issue 33): the mileage read at each inspection over the day it was done.
Each has a kind (an enum type) and the checks done (a flags enum type): v4 enums (issue 37), and the unbound
function InspectionsOfKind(kind) takes an enum parameter (its implementation is registered here); and the station it was
done at (Edm.GeographyPoint) and the test drive's route (Edm.GeographyLineString): geography (issue 37).

    python ownership_service.py PORT      # serves http://127.0.0.1:PORT/odata/ until killed
"""

import signal
import sys
from datetime import datetime, timezone
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from odatapy.data import ComplexValue, Entity, Property, ValueType
from odatapy.edm import geo
from odatapy.edm.annotations import (
    Collection, Constant, ConstantKind, Path, PathKind, PropertyValue, Record, to_expression)
from odatapy.edm.csdl import (
    CsdlSingleton,
    CsdlAnnotation,
    CsdlAnnotations,
    CsdlInclude,
    CsdlReference,
    CsdlAbstractEdmProvider,
    CsdlAction,
    CsdlActionImport,
    CsdlFunction,
    CsdlFunctionImport,
    CsdlParameter,
    CsdlReturnType,
    CsdlEntityContainer,
    CsdlEntitySet,
    CsdlComplexType,
    CsdlEntityType,
    CsdlEnumMember,
    CsdlEnumType,
    CsdlNavigationProperty,
    CsdlNavigationPropertyBinding,
    CsdlProperty,
    CsdlPropertyRef,
    CsdlSchema,
)
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor
from odatapy.errors import ODataApplicationException
from odatapy.server.processor import ActionProcessor, CustomETagSupport

NS = "Ownership"


def key_type(name, key, fields, navigations):
    properties = [CsdlProperty(name=key, type="Edm.Int32", nullable=False)]
    properties += [CsdlProperty(name=field, type=kind) for field, kind in fields]
    return CsdlEntityType(
        name=name, key=[CsdlPropertyRef(name=key)], properties=properties, navigation_properties=navigations)


class Schema(CsdlAbstractEdmProvider):
    def __init__(self, key_as_segment=False):
        # Served again at /ks/, declaring Capabilities.KeyAsSegmentSupported: entities addressed as Staff/3 (issue 37).
        self.key_as_segment = key_as_segment

    def get_schemas(self):
        nav = CsdlNavigationProperty
        person = key_type(
            "Person", "personID", [("firstName", "Edm.String"), ("lastName", "Edm.String")],
            [nav(name="PersonCar", type=NS + ".PersonCar", collection=True, partner="Person"),
             # Many to many with no link entity between: a person's friends.
             nav(name="Friends", type=NS + ".Person", collection=True, partner="Friends"),
             # Containment (issue 37): a person's trips live inside the person, keyed under it (Person(1)/Trips(2)),
             # in no entity set of their own, as TripPin's are.
             nav(name="Trips", type=NS + ".Trip", collection=True, contains_target=True)])
        trip = key_type("Trip", "tripID", [("name", "Edm.String"), ("budget", "Edm.Int32")], [])
        car = key_type(
            "Car", "carID", [("make", "Edm.String"), ("model", "Edm.String")],
            [nav(name="PersonCar", type=NS + ".PersonCar", collection=True, partner="Car")])
        link = key_type(
            "PersonCar", "personCarID", [("personID", "Edm.Int32"), ("carID", "Edm.Int32")],
            [nav(name="Person", type=NS + ".Person", partner="PersonCar"),
             nav(name="Car", type=NS + ".Car", partner="PersonCar")])
        common = "com.sap.vocabularies.Common.v1."
        makes = key_type("Make", "makeID", [("name", "Edm.String"), ("country", "Edm.String")], [])
        # Media entities (issue 37): each photo's content is its stream, read at Photo(k)/$value.
        photo = key_type("Photo", "photoID", [("caption", "Edm.String")], [])
        photo.has_stream = True
        parts = key_type("Part", "partID", [("name", "Edm.String"), ("fits", "Edm.String")], [])
        # The dealership's navigations (issue 37): its showroom's cars (bound to the Car set) and its service bays,
        # contained in it as TripPin's Me holds its trips (Dealership/Bays(1)).
        dealership = key_type(
            "Dealership", "dealershipID", [("name", "Edm.String"), ("city", "Edm.String")],
            [nav(name="Showroom", type=NS + ".Car", collection=True),
             nav(name="Bays", type=NS + ".Bay", collection=True, contains_target=True)])
        bay = key_type("Bay", "bayID", [("name", "Edm.String"), ("lift", "Edm.Boolean")], [])
        car.properties[1].annotations = [
            CsdlAnnotation(term=common + "ValueList", value=Record(type=common + "ValueListType", property_values=[
                PropertyValue("CollectionPath", to_expression("Make")),
                PropertyValue("Label", to_expression("Makes")),
                PropertyValue("Parameters", Collection(items=[
                    Record(type=common + "ValueListParameterInOut", property_values=[
                        PropertyValue("LocalDataProperty", Path("make", PathKind.PropertyPath)),
                        PropertyValue("ValueListProperty", to_expression("name"))]),
                    Record(type=common + "ValueListParameterDisplayOnly", property_values=[
                        PropertyValue("ValueListProperty", to_expression("country"))]),
                ]))])),
            CsdlAnnotation(term=common + "ValueListWithFixedValues", value=True)]
        # A car's model has value help from another service (issue 33), as SAP's RAP services give it: the model
        # names the value-help service's $metadata, relative to its own, and that service says how (ModelHelp).
        car.properties[2].annotations = [CsdlAnnotation(
            term=common + "ValueListReferences", value=Collection(items=[to_expression("../vh/$metadata")]))]
        ui = "com.sap.vocabularies.UI.v1."
        verdict_level = Path("verdictCriticality")
        inspection = key_type(
            "Inspection", "inspectionID",
            [("carID", "Edm.Int32"), ("verdictCriticality", "Edm.Int32"), ("inspectedOn", "Edm.DateTimeOffset"),
             ("mileage", "Edm.Int32"), ("kind", NS + ".InspectionKind"), ("checks", NS + ".Checks"),
             ("station", "Edm.GeographyPoint"), ("route", "Edm.GeographyLineString")], [])
        inspection.properties.insert(1, CsdlProperty(
            name="verdict", type="Edm.String",
            annotations=[CsdlAnnotation(term=ui + "Criticality", value=verdict_level)]))
        inspection.annotations = [CsdlAnnotation(term=ui + "LineItem", value=Collection(items=[
            Record(type=ui + "DataField", property_values=[
                PropertyValue("Value", Path("verdict")), PropertyValue("Label", to_expression("Verdict")),
                PropertyValue("Criticality", verdict_level)]),
            Record(type=ui + "DataField", property_values=[
                PropertyValue("Value", Path("carID")), PropertyValue("Label", to_expression("Car"))]),
        ])), CsdlAnnotation(term=ui + "Chart", qualifier="Mileage", value=Record(
            type=ui + "ChartDefinitionType", property_values=[
                PropertyValue("Title", to_expression("Mileage at inspection")),
                PropertyValue("ChartType", Constant(ConstantKind.EnumMember, ui + "ChartType/Line")),
                PropertyValue("Dimensions", Collection(items=[Path("inspectedOn", PathKind.PropertyPath)])),
                PropertyValue("Measures", Collection(items=[Path("mileage", PathKind.PropertyPath)]))]))]
        # Work orders edited through drafts, as SAP CAP serves them (issue 36): the key holds IsActiveEntity, the set
        # names its draft actions in Common.DraftRoot, and a change goes edit → PATCH the draft → prepare → activate.
        work_order = CsdlEntityType(
            name="WorkOrder", key=[CsdlPropertyRef(name="ID"), CsdlPropertyRef(name="IsActiveEntity")],
            properties=[CsdlProperty(name="ID", type="Edm.Int32", nullable=False),
                        CsdlProperty(name="IsActiveEntity", type="Edm.Boolean", nullable=False),
                        CsdlProperty(name="title", type="Edm.String"),
                        CsdlProperty(name="HasActiveEntity", type="Edm.Boolean", nullable=False),
                        CsdlProperty(name="HasDraftEntity", type="Edm.Boolean", nullable=False),
                        # How many words the title has: the service works it out (below, after a draft's PATCH)
                        CsdlProperty(name="words", type="Edm.Int32", annotations=[
                            CsdlAnnotation(term="Org.OData.Core.V1.Computed", value=to_expression(True))])])
        # SAP's side effects of a field: a changed title changes the words (read again by a client, as odatapy
        # answers a PATCH with no entity).
        work_order.annotations = [CsdlAnnotation(
            term=common + "SideEffects", qualifier="Words", value=Record(
                type=common + "SideEffectsType", property_values=[
                    PropertyValue("SourceProperties", Collection(items=[Path("title", PathKind.PropertyPath)])),
                    PropertyValue("TargetProperties", Collection(items=[to_expression("words")]))]))]
        # The workshop's staff (issue 37): an open type (a row may hold properties the schema does not declare) and a
        # type derived from it, mechanics with a speciality of their own, in one set.
        employee = key_type("Employee", "staffID", [("name", "Edm.String")], [])
        employee.open_type = True
        # Where each works and what they can do (issue 37): a complex value and a collection of strings.
        address = CsdlComplexType(name="Address", properties=[
            CsdlProperty(name="street", type="Edm.String"), CsdlProperty(name="city", type="Edm.String",
                annotations=[CsdlAnnotation(term=common + "Label", value=to_expression("Town"))])])
        employee.properties += [CsdlProperty(name="workplace", type=NS + ".Address"),
                                CsdlProperty(name="skills", type="Collection(Edm.String)")]
        # Its list: the name, and the town of the workplace (a path into the complex value).
        employee.annotations = [CsdlAnnotation(term=ui + "LineItem", value=Collection(items=[
            Record(type=ui + "DataField", property_values=[PropertyValue("Value", Path("name"))]),
            Record(type=ui + "DataField", property_values=[
                PropertyValue("Value", Path("workplace/city")), PropertyValue("Label", to_expression("Works in"))]),
        ]))]
        mechanic = CsdlEntityType(
            name="Mechanic", base_type=NS + ".Employee",
            properties=[CsdlProperty(name="speciality", type="Edm.String")],
            # A navigation of the derived type alone (issue 37): a mechanic's certificates, reached through a cast
            # (Staff(2)/Ownership.Mechanic/Certificates).
            navigation_properties=[nav(name="Certificates", type=NS + ".Certificate", collection=True)])
        certificate = key_type("Certificate", "certificateID", [("title", "Edm.String")], [])
        bind = CsdlNavigationPropertyBinding
        container = CsdlEntityContainer(name="Container", entity_sets=[
            CsdlEntitySet(name="Staff", type=NS + ".Employee", navigation_property_bindings=[
                bind(path=NS + ".Mechanic/Certificates", target="Certificate")]),
            CsdlEntitySet(name="Certificate", type=NS + ".Certificate"),
            CsdlEntitySet(name="Person", type=NS + ".Person",
                          navigation_property_bindings=[bind(path="PersonCar", target="PersonCar"),
                                                        bind(path="Friends", target="Person")]),
            CsdlEntitySet(name="Car", type=NS + ".Car",
                          navigation_property_bindings=[bind(path="PersonCar", target="PersonCar")],
                          # Lists of cars come with delta links (issue 34): odatapy keeps the change log.
                          annotations=[CsdlAnnotation(
                              term="Org.OData.Capabilities.V1.ChangeTracking",
                              value=Record(property_values=[PropertyValue("Supported", to_expression(True))]))]),
            CsdlEntitySet(name="Inspection", type=NS + ".Inspection"),
            CsdlEntitySet(name="Photo", type=NS + ".Photo"),
            CsdlEntitySet(name="Make", type=NS + ".Make"),
            # A parts catalogue that answers $search (issues 33 and 37): what matches is odatapy's own rule.
            CsdlEntitySet(name="Part", type=NS + ".Part", annotations=[CsdlAnnotation(
                term="Org.OData.Capabilities.V1.SearchRestrictions",
                value=Record(property_values=[PropertyValue("Searchable", to_expression(True))]))]),
            CsdlEntitySet(name="PersonCar", type=NS + ".PersonCar",
                          navigation_property_bindings=[bind(path="Person", target="Person"),
                                                        bind(path="Car", target="Car")]),
            CsdlEntitySet(name="WorkOrder", type=NS + ".WorkOrder", annotations=[CsdlAnnotation(
                term=common + "DraftRoot", value=Record(type=common + "DraftRootType", property_values=[
                    PropertyValue("ActivationAction", to_expression(NS + ".draftActivate")),
                    PropertyValue("EditAction", to_expression(NS + ".draftEdit")),
                    PropertyValue("NewAction", to_expression(NS + ".WorkOrderNew")),
                    PropertyValue("PreparationAction", to_expression(NS + ".draftPrepare"))]))]),
        ], singletons=[CsdlSingleton(name="Dealership", type=NS + ".Dealership", navigation_property_bindings=[
            bind(path="Showroom", target="Car")])],
            function_imports=[CsdlFunctionImport(name="CarsByMake", function=NS + ".CarsByMake", entity_set="Car"),
                             CsdlFunctionImport(name="CountOfMake", function=NS + ".CountOfMake"),
                             CsdlFunctionImport(name="InspectionsOfKind", function=NS + ".InspectionsOfKind",
                                                entity_set="Inspection")],
            action_imports=[CsdlActionImport(name="AddMake", action=NS + ".AddMake")],
            annotations=[CsdlAnnotation(term="Org.OData.Capabilities.V1.KeyAsSegmentSupported", value=True)]
            if self.key_as_segment else [])
        cars_by_make = CsdlFunction(
            name="CarsByMake", parameters=[CsdlParameter(name="make", type="Edm.String", nullable=False)],
            return_type=CsdlReturnType(type=NS + ".Car", collection=True))
        # Functions that answer a value (issue 36): how many cars of a make, and a car's make and model as one text.
        count_of_make = CsdlFunction(
            name="CountOfMake", parameters=[CsdlParameter(name="make", type="Edm.String", nullable=False)],
            return_type=CsdlReturnType(type="Edm.Int32"))
        described = CsdlFunction(
            name="Describe", bound=True, parameters=[CsdlParameter(name="car", type=NS + ".Car", nullable=False)],
            return_type=CsdlReturnType(type="Edm.String"))
        # An enum parameter (issue 37): the inspections of one kind.
        of_kind = CsdlFunction(
            name="InspectionsOfKind", parameters=[CsdlParameter(name="kind", type=NS + ".InspectionKind", nullable=False)],
            return_type=CsdlReturnType(type=NS + ".Inspection", collection=True))
        repaint = CsdlAction(
            name="Repaint", bound=True,
            parameters=[CsdlParameter(name="car", type=NS + ".Car", nullable=False),
                        # The make to paint it as has the car's value help (not fixed: any make is taken) and a
                        # default (issue 36).
                        CsdlParameter(name="make", type="Edm.String", nullable=False, annotations=[
                            car.properties[1].annotations[0],
                            CsdlAnnotation(term="Org.OData.Core.V1.OptionalParameter", value=Record(
                                property_values=[PropertyValue("DefaultValue", to_expression("Skoda"))]))])])
        # An action whose effects reach beyond the car (issue 36): a new owner registered for it, which its
        # Common.SideEffects says changes the car's ownerships.
        register = CsdlAction(
            name="RegisterOwner", bound=True,
            parameters=[CsdlParameter(name="car", type=NS + ".Car", nullable=False),
                        CsdlParameter(name="personID", type="Edm.Int32", nullable=False)],
            annotations=[CsdlAnnotation(term=common + "SideEffects", value=Record(
                type=common + "SideEffectsType", property_values=[
                    PropertyValue("TargetEntities", Collection(items=[
                        Path("car/PersonCar", PathKind.NavigationPropertyPath)]))]))])
        # An action on the service and one on a list of cars (issue 36): a make added to the catalogue, and every car
        # of one make renamed to another.
        # (its Common.SideEffects name the makes by an absolute path: an action on the service has no row to start from)
        add_make = CsdlAction(
            name="AddMake",
            parameters=[CsdlParameter(name="name", type="Edm.String", nullable=False),
                        CsdlParameter(name="country", type="Edm.String", nullable=False)],
            annotations=[CsdlAnnotation(term=common + "SideEffects", value=Record(
                type=common + "SideEffectsType", property_values=[
                    PropertyValue("TargetEntities", Collection(items=[
                        Path("/" + NS + ".Container/Make", PathKind.NavigationPropertyPath)]))]))])
        rename_make = CsdlAction(
            name="RenameMake", bound=True,
            parameters=[CsdlParameter(name="cars", type=NS + ".Car", nullable=False, collection=True),
                        CsdlParameter(name="old", type="Edm.String", nullable=False),
                        CsdlParameter(name="new", type="Edm.String", nullable=False)])
        def draft_action(name, *parameters):
            return CsdlAction(
                name=name, bound=True, entity_set_path="in",
                parameters=[CsdlParameter(name="in", type=NS + ".WorkOrder", nullable=False)] + [
                    CsdlParameter(name=parameter, type=kind) for parameter, kind in parameters],
                return_type=CsdlReturnType(type=NS + ".WorkOrder"))
        drafts = [draft_action("draftEdit", ("PreserveChanges", "Edm.Boolean")),
                  draft_action("draftPrepare", ("SideEffectsQualifier", "Edm.String")), draft_action("draftActivate")]
        # A new work order's draft is made by an action bound to the set, as the DraftRoot's NewAction names it
        # (SAP RAP); it takes the number and the title, and the client sends the rest to the draft it makes.
        drafts.append(CsdlAction(
            name="WorkOrderNew", bound=True, entity_set_path="in",
            parameters=[CsdlParameter(name="in", type=NS + ".WorkOrder", nullable=False, collection=True),
                        CsdlParameter(name="ID", type="Edm.Int32", nullable=False),
                        CsdlParameter(name="title", type="Edm.String")],
            return_type=CsdlReturnType(type=NS + ".WorkOrder")))
        kinds = CsdlEnumType(name="InspectionKind", members=[
            CsdlEnumMember(name=name, value=value) for name, value in [("Annual", 0), ("Safety", 1), ("Emissions", 2)]])
        checks = CsdlEnumType(name="Checks", is_flags=True, members=[
            CsdlEnumMember(name=name, value=value) for name, value in [("Brakes", 1), ("Lights", 2), ("Tyres", 4)]])
        return [CsdlSchema(namespace=NS, entity_types=[person, car, link, inspection, makes, parts, dealership, bay,
                                                     work_order, employee, mechanic, photo, trip, certificate],
                           entity_container=container,
                           enum_types=[kinds, checks], complex_types=[address],
                           functions=[cars_by_make, of_kind, count_of_make, described],
                           actions=[repaint, register, add_make, rename_make] + drafts)]


class ModelHelp(CsdlAbstractEdmProvider):
    """The value-help service of a car's model (issue 33), served at /vh/ beside the main service: a set of car
    models, and a Common.ValueListMapping aimed at the main service's Car/model (through the alias its reference
    gives that namespace) that writes the model's name back (InOut) and narrows the list by the car's make (In)."""

    def get_references(self):
        return [CsdlReference(uri="../odata/$metadata", includes=[CsdlInclude(namespace=NS, alias="Main")])]

    def get_schemas(self):
        common = "com.sap.vocabularies.Common.v1."
        model = key_type("CarModel", "modelID", [("name", "Edm.String"), ("make", "Edm.String")], [])
        mapping = CsdlAnnotation(term=common + "ValueListMapping", value=Record(
            type=common + "ValueListMappingType", property_values=[
                PropertyValue("Label", to_expression("Car models")),
                PropertyValue("CollectionPath", to_expression("CarModel")),
                PropertyValue("Parameters", Collection(items=[
                    Record(type=common + "ValueListParameterInOut", property_values=[
                        PropertyValue("LocalDataProperty", Path("model", PathKind.PropertyPath)),
                        PropertyValue("ValueListProperty", to_expression("name"))]),
                    Record(type=common + "ValueListParameterIn", property_values=[
                        PropertyValue("LocalDataProperty", Path("make", PathKind.PropertyPath)),
                        PropertyValue("ValueListProperty", to_expression("make"))]),
                ]))]))
        container = CsdlEntityContainer(
            name="Container", entity_sets=[CsdlEntitySet(name="CarModel", type="CarModels.CarModel")])
        return [CsdlSchema(namespace="CarModels", entity_types=[model], entity_container=container,
                           annotation_groups=[CsdlAnnotations(target="Main.Car/model", annotations=[mapping])])]


def model_help_app():
    """The value-help service as a WSGI application mounted at /vh."""
    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(ModelHelp()))
    store = InMemoryDataStore()
    store.set_entities("CarModel", [
        entity(modelID=index + 1, name=name, make=make)
        for index, (make, name) in enumerate([
            ("Ford", "Focus"), ("Ford", "Fiesta"), ("Ford", "Kuga"), ("Honda", "Civic"), ("Honda", "Jazz"),
            ("Honda", "CR-V"), ("Skoda", "Octavia"), ("Skoda", "Fabia"), ("Tesla", "Model 3"), ("Tesla", "Model Y"),
            ("Toyota", "Corolla"), ("Toyota", "Yaris")])])
    handler.register(InMemoryProcessor(store))
    return ODataWSGIApp(handler, mount_path="/vh")


class EveryEntityHasAnETag(CustomETagSupport):
    def has_etag(self, entity_set_or_singleton):
        return True


def entity(**values):
    made = Entity()
    for name, value in values.items():
        kind = ("Edm.Int32" if isinstance(value, int) else
                "Edm.DateTimeOffset" if isinstance(value, datetime) else "Edm.String")
        made.set_property(name, value, ValueType.PRIMITIVE, kind)
    made.etag = 'W/"1"'
    return made


def photos():
    """Three media entities: a small picture, a manual of three megabytes (read in many pieces), and one whose
    content the service says is on another origin (the client refuses to follow it there)."""
    def photo(key, caption, content_type, content=None, source=None):
        made = entity(photoID=key, caption=caption)
        made.media_content_type = content_type
        made.media_content = content
        made.media_content_source = source
        made.media_etag = 'W/"m%d"' % key
        return made
    picture = bytes(range(256)) * 16
    manual = b"".join(b"%07d page of the service manual\n" % line for line in range(100_000))
    return [photo(1, "Front view", "image/png", picture),
            photo(2, "Service manual", "application/pdf", manual),
            photo(3, "Elsewhere", "image/png", source="http://192.0.2.7/photo.png")]


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
    store.set_entities("Make", [
        entity(makeID=key, name=name, country=country)
        for key, name, country in [(1, "Ford", "United States"), (2, "Honda", "Japan"), (3, "Skoda", "Czechia"),
                                   (4, "Tesla", "United States"), (5, "Toyota", "Japan")]])
    # Work orders (issue 36): 1 and 3 active only; 2 with a draft ALICE is editing (its lock).
    def work_order(key, title, active, has_active=False, has_draft=False):
        made = entity(ID=key, title=title, words=len(title.split()))
        for name, value in [("IsActiveEntity", active), ("HasActiveEntity", has_active), ("HasDraftEntity", has_draft)]:
            made.set_property(name, value, ValueType.PRIMITIVE, "Edm.Boolean")
        return made
    store.set_entities("WorkOrder", [
        work_order(1, "Replace the brake pads", True), work_order(2, "Check the lights", True, has_draft=True),
        work_order(2, "Check the lights and the horn", False, has_active=True),
        work_order(3, "Rotate the tyres", True)])
    # Staff (issue 37): a clerk, and two mechanics; one mechanic has a property of their own (the type is open).
    staff = [entity(staffID=1, name="Dana"), entity(staffID=2, name="Eli", speciality="Brakes"),
             entity(staffID=3, name="Fay", speciality="Electrics", nickname="Sparks")]
    for made in staff[1:]:
        made.type = NS + ".Mechanic"
    fay = staff[2]
    fay.set_property("workplace", ComplexValue(type_name=NS + ".Address", properties=[
        Property(name="street", value="1 Pike Street", type="Edm.String"),
        Property(name="city", value="Seattle", type="Edm.String")]), ValueType.COMPLEX, NS + ".Address")
    fay.set_property("skills", ["Wiring", "Batteries", "Diagnostics"], ValueType.COLLECTION_PRIMITIVE,
                     "Collection(Edm.String)")
    store.set_entities("Staff", staff)
    # Eli's certificates (issue 37): a navigation only mechanics have.
    certificates = [entity(certificateID=1, title="Brake systems"), entity(certificateID=2, title="Hybrid safety")]
    store.set_entities("Certificate", certificates)
    store.set_relation("Staff", "2", "Certificates", certificates)
    store.set_entities("Photo", photos())
    # The dealership itself: a singleton (issue 37).
    store.set_entities("Dealership", [entity(dealershipID=1, name="Ownership Motors", city="Seattle")])
    store.set_relation("Dealership", "1", "Bays", [entity(bayID=1, name="Bay one", lift=True),
                                                   entity(bayID=2, name="Bay two", lift=False)])
    store.set_relation("Dealership", "1", "Showroom", [car for car in store.entities("Car")
                                                       if car.get_value("carID") in (1, 3)])
    # Sixty parts, each for one make: a brake pad, a filter, a wiper… for every make.
    kinds = ["Brake pad", "Oil filter", "Wiper blade", "Spark plug", "Air filter", "Timing belt",
             "Headlamp", "Brake disc", "Fuel pump", "Clutch kit", "Radiator", "Wheel bearing"]
    makes = ["Ford", "Honda", "Skoda", "Tesla", "Toyota"]
    store.set_entities("Part", [
        entity(partID=index + 1, name=kinds[index % 12], fits=makes[index // 12]) for index in range(60)])
    # A verdict's level: 1 negative, 2 critical, 3 positive, 0 neutral.
    verdicts = [(1, 1, "Brakes worn", 1, (2024, 3, 1), 48200), (2, 2, "Tyres near the limit", 2, (2024, 9, 12), 61950),
                (3, 3, "Passed", 3, (2025, 2, 20), 70310), (4, 4, "Booked", 0, (2025, 8, 5), 83475)]
    inspections = []
    for (key, car, verdict, level, day, mileage), (kind, done) in zip(verdicts, [
            ("Annual", "Brakes,Lights"), ("Safety", "Tyres"), ("Emissions", "Brakes,Lights,Tyres"), ("Annual", "")]):
        made = entity(inspectionID=key, carID=car, verdict=verdict, verdictCriticality=level,
                      inspectedOn=datetime(*day, tzinfo=timezone.utc), mileage=mileage)
        made.set_property("kind", kind, ValueType.ENUM, NS + ".InspectionKind")
        if done:
            made.set_property("checks", done, ValueType.ENUM, NS + ".Checks")
        # Seattle's stations, a little apart; each drive three points long
        lon, lat = -122.3331 + key / 100, 47.6097 + key / 100
        made.set_property("station", geo.Point(dimension=geo.Dimension.GEOGRAPHY, x=lon, y=lat),
                          ValueType.GEOSPATIAL, "Edm.GeographyPoint")
        made.set_property("route", geo.LineString(dimension=geo.Dimension.GEOGRAPHY, points=[
            geo.Point(dimension=geo.Dimension.GEOGRAPHY, x=lon + step / 1000, y=lat) for step in range(3)]),
            ValueType.GEOSPATIAL, "Edm.GeographyLineString")
        inspections.append(made)
    store.set_entities("Inspection", inspections)
    # Trips (issue 37): Alice has two, Bob one; Bob's trip has the key 1 as Alice's first does, a different trip.
    for person, trips in [(1, [(1, "Lisbon", 1200), (2, "Oslo", 2400)]), (2, [(1, "Kyoto", 3100)])]:
        store.set_relation("Person", repr(person), "Trips",
                           [entity(tripID=key, name=name, budget=budget) for key, name, budget in trips])
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


# The work orders WorkOrderNew made, for the tests to ask at /_test/made-by-new-action (one list for both roots).
MADE_BY_NEW_ACTION = set()


class CarActions(ActionProcessor):
    """The actions on a car (odatapy hands every action to one processor): Repaint and RegisterOwner; and those on
    the service and on the list of cars, and the draft actions of a work order."""

    def __init__(self, store):
        self.store = store

    def init(self, odata, service_metadata):
        pass

    def process_action_entity(self, request, response, uri_info, request_ct, response_ct):
        """The draft actions of a work order (issue 36), as CAP answers them: the entity, with its ETag."""
        name = str(getattr(uri_info.resource_parts[-1], "name", ""))
        if name.endswith("WorkOrderNew"):
            return self.new_work_order(request, response)
        keys = uri_info.resource_parts[0].typed_keys
        key, active = keys.get("ID"), keys.get("IsActiveEntity") in (True, "true")
        with self.store.lock:
            orders = self.store.entities("WorkOrder")
            def find(is_active):
                return next((o for o in orders
                             if o.get_value("ID") == key and o.get_value("IsActiveEntity") is is_active), None)
            original, draft = find(True), find(False)
            if name.endswith("draftEdit"):
                if not active or original is None:
                    raise ODataApplicationException("draftEdit is invoked on an active work order.", 400)
                if_match = (request.get_header("If-Match") or "").strip()
                if if_match and if_match != "*" and if_match != original.etag:
                    raise ODataApplicationException("The work order was changed since it was read.", 412)
                if draft is not None and key == 2:
                    raise ODataApplicationException("The work order is locked by ALICE.", 423)
                if draft is not None:
                    if self.parameters(request, "PreserveChanges") != ["False"]:
                        raise ODataApplicationException("A draft of this work order exists already.", 409)
                    # (PreserveChanges false: the user's own draft is discarded, and made anew below)
                    orders = [o for o in orders if o is not draft]
                draft = Entity()
                for prop in ("ID", "title", "words"):
                    draft.set_property(prop, original.get_value(prop), ValueType.PRIMITIVE,
                                       "Edm.String" if prop == "title" else "Edm.Int32")
                for prop, value in [("IsActiveEntity", False), ("HasActiveEntity", True), ("HasDraftEntity", False)]:
                    draft.set_property(prop, value, ValueType.PRIMITIVE, "Edm.Boolean")
                draft.etag = 'W/"1"'
                original.set_property("HasDraftEntity", True, ValueType.PRIMITIVE, "Edm.Boolean")
                self.store.set_entities("WorkOrder", orders + [draft])
                answer = draft
            elif active or draft is None:
                raise ODataApplicationException("%s is invoked on a draft." % name.split(".")[-1], 400)
            elif name.endswith("draftPrepare"):
                answer = draft
            elif original is None:
                # draftActivate of a new work order: the draft becomes the active one
                made = Entity()
                made.set_property("ID", key, ValueType.PRIMITIVE, "Edm.Int32")
                made.set_property("title", draft.get_value("title"), ValueType.PRIMITIVE, "Edm.String")
                made.set_property("words", len((draft.get_value("title") or "").split()), ValueType.PRIMITIVE,
                                  "Edm.Int32")
                for prop, value in [("IsActiveEntity", True), ("HasActiveEntity", False), ("HasDraftEntity", False)]:
                    made.set_property(prop, value, ValueType.PRIMITIVE, "Edm.Boolean")
                made.etag = 'W/"1"'
                self.store.set_entities("WorkOrder", [o for o in orders if o is not draft] + [made])
                answer = made
            else:
                # draftActivate: the draft's values are the active entity's, whose version moves on; the draft goes
                original.set_property("title", draft.get_value("title"), ValueType.PRIMITIVE, "Edm.String")
                original.set_property("words", len((draft.get_value("title") or "").split()), ValueType.PRIMITIVE,
                                      "Edm.Int32")
                original.set_property("HasDraftEntity", False, ValueType.PRIMITIVE, "Edm.Boolean")
                number = int(original.etag.strip('W/"') or "0") if original.etag else 0
                original.etag = 'W/"%d"' % (number + 1)
                self.store.set_entities("WorkOrder", [o for o in orders if o is not draft])
                answer = original
        self.answer_work_order(response, answer, 200)

    @staticmethod
    def answer_work_order(response, order, status):
        """A draft action's answer, as CAP gives it: the work order, with its ETag."""
        import json
        body = {"@odata.context": "$metadata#WorkOrder/$entity", "@odata.etag": order.etag}
        for prop in ("ID", "IsActiveEntity", "title", "words", "HasActiveEntity", "HasDraftEntity"):
            body[prop] = order.get_value(prop)
        response.set_status(status)
        response.set_header("ETag", order.etag)
        response.set_content(json.dumps(body).encode(), "application/json")

    def new_work_order(self, request, response):
        """POST WorkOrder/WorkOrderNew {"ID": …, "title": …}: a new work order's draft (201), as RAP's NewAction
        makes it; 409 when the number is taken."""
        import json
        given = json.loads(request.body.decode("utf-8") or "{}")
        key, title = given.get("ID"), given.get("title")
        if not isinstance(key, int):
            raise ODataApplicationException("WorkOrderNew needs the work order's number (ID).", 400)
        with self.store.lock:
            orders = self.store.entities("WorkOrder")
            if any(o.get_value("ID") == key for o in orders):
                raise ODataApplicationException("Work order %d exists already." % key, 409)
            draft = Entity()
            draft.set_property("ID", key, ValueType.PRIMITIVE, "Edm.Int32")
            draft.set_property("title", title, ValueType.PRIMITIVE, "Edm.String")
            draft.set_property("words", len((title or "").split()), ValueType.PRIMITIVE, "Edm.Int32")
            for prop, value in [("IsActiveEntity", False), ("HasActiveEntity", False), ("HasDraftEntity", False)]:
                draft.set_property(prop, value, ValueType.PRIMITIVE, "Edm.Boolean")
            draft.etag = 'W/"1"'
            self.store.set_entities("WorkOrder", orders + [draft])
            MADE_BY_NEW_ACTION.add(key)
        self.answer_work_order(response, draft, 201)

    def process_action_void(self, request, response, uri_info, request_ct):
        name = str(getattr(uri_info.resource_parts[-1], "name", ""))
        if name.endswith("RegisterOwner"):
            self.register_owner(request, response, uri_info)
        elif name.endswith("AddMake"):
            self.add_make(request, response)
        elif name.endswith("RenameMake"):
            self.rename_make(request, response)
        else:
            self.repaint(request, response, uri_info)

    @staticmethod
    def parameters(request, *names):
        import json
        try:
            given = json.loads(request.body.decode("utf-8") or "{}")
            return [str(given[name]) for name in names]
        except (ValueError, KeyError, TypeError):
            raise ODataApplicationException("It needs %s." % " and ".join(names), 400)

    def add_make(self, request, response):
        """POST AddMake {"name": …, "country": …}: a make in the catalogue; 204."""
        name, country = self.parameters(request, "name", "country")
        with self.store.lock:
            makes = self.store.entities("Make")
            number = max([make.get_value("makeID") for make in makes] + [0]) + 1
            self.store.set_entities("Make", makes + [entity(makeID=number, name=name, country=country)])
        response.set_status(204)

    def rename_make(self, request, response):
        """POST Car/Ownership.RenameMake {"old": …, "new": …}: every car of the old make takes the new one (its ETag
        moves on); 204."""
        old, new = self.parameters(request, "old", "new")
        with self.store.lock:
            for car in self.store.entities("Car"):
                if car.get_value("make") == old:
                    car.set_property("make", new, ValueType.PRIMITIVE, "Edm.String")
                    number = int(car.etag.strip('W/"') or "0") if car.etag else 0
                    car.etag = 'W/"%d"' % (number + 1)
        response.set_status(204)

    def repaint(self, request, response, uri_info):
        """POST Car(k)/Ownership.Repaint {"make": "…"}: the car takes that make; 204 (412 when If-Match names
        another version of it)."""
        import json
        target = uri_info.resource_parts[0]
        if_match = request.get_header("If-Match")
        key = target.typed_keys.get("carID")
        try:
            make = json.loads(request.body.decode("utf-8") or "{}")["make"]
        except (ValueError, KeyError, TypeError):
            raise ODataApplicationException("Repaint needs a make.", 400)
        with self.store.lock:
            car = next((c for c in self.store.entities("Car") if c.get_value("carID") == key), None)
            if car is None:
                raise ODataApplicationException("No such car.", 404)
            if if_match and if_match.strip() != "*" and if_match.strip() != car.etag:
                raise ODataApplicationException("The car was changed since it was read.", 412)
            car.set_property("make", make, ValueType.PRIMITIVE, "Edm.String")
            number = int(car.etag.strip('W/"') or "0") if car.etag else 0
            car.etag = 'W/"%d"' % (number + 1)
        response.set_status(204)


    def register_owner(self, request, response, uri_info):
        """POST Car(k)/Ownership.RegisterOwner {"personID": p}: a new ownership of the car by that person (both ways
        linked, as the seed links them); 204. The car itself does not change."""
        import json
        key = uri_info.resource_parts[0].typed_keys.get("carID")
        try:
            person_id = int(json.loads(request.body.decode("utf-8") or "{}")["personID"])
        except (ValueError, KeyError, TypeError):
            raise ODataApplicationException("RegisterOwner needs a personID.", 400)
        with self.store.lock:
            car = next((c for c in self.store.entities("Car") if c.get_value("carID") == key), None)
            person = next((p for p in self.store.entities("Person") if p.get_value("personID") == person_id), None)
            if car is None or person is None:
                raise ODataApplicationException("No such car or person.", 404)
            links = self.store.entities("PersonCar")
            number = max([link.get_value("personCarID") for link in links] + [0]) + 1
            link = entity(personCarID=number, personID=person_id, carID=key)
            self.store.set_entities("PersonCar", links + [link])
            # (in the same hold of the store's reentrant lock: no reader sees the ownership half linked)
            self.store.add_relation("Person", repr(person_id), "PersonCar", link)
            self.store.add_relation("Car", repr(key), "PersonCar", link)
            self.store.set_relation("PersonCar", repr(number), "Person", [person])
            self.store.set_relation("PersonCar", repr(number), "Car", [car])
        response.set_status(204)


def cars_by_make(store):
    def implementation(target, part):
        make = part.typed_parameters.get("make")
        return [car for car in store.entities("Car") if car.get_value("make") == make]
    return implementation


def count_of_make(store):
    def implementation(target, part):
        make = str(part.typed_parameters.get("make"))
        return sum(1 for car in store.entities("Car") if car.get_value("make") == make)
    return implementation


def describe(store):
    def implementation(target, part):
        car = target.entity
        return "%s %s" % (car.get_value("make"), car.get_value("model"))
    return implementation


def inspections_of_kind(store):
    def implementation(target, part):
        # (odatapy hands the literal as written: Ownership.InspectionKind'Annual')
        kind = str(part.typed_parameters.get("kind"))
        wanted = kind.split("'")[1] if kind.count("'") == 2 else kind
        return [made for made in store.entities("Inspection") if made.get_value("kind") == wanted]
    return implementation


def wsgi_app():
    """The service as a WSGI application mounted at /odata, its value-help service at /vh (sign_in_service.py puts
    both behind OAuth 2.0)."""
    store = InMemoryDataStore()
    seed(store)

    def service(key_as_segment, mount_path):
        odata = OData.new_instance()
        handler = odata.create_handler(odata.create_service_metadata(Schema(key_as_segment)))
        processor = InMemoryProcessor(store)
        processor.register_function(NS + ".CarsByMake", cars_by_make(store))
        processor.register_function(NS + ".InspectionsOfKind", inspections_of_kind(store))
        processor.register_function(NS + ".CountOfMake", count_of_make(store))
        processor.register_function(NS + ".Describe", describe(store))
        handler.register(processor)
        handler.register(CarActions(store))
        handler.register(EveryEntityHasAnETag())
        return ODataWSGIApp(handler, mount_path=mount_path)
    main = service(False, "/odata")
    # (the same data, at a root that declares keys as segments: one store behind both)
    segments = service(True, "/ks")
    helper = model_help_app()

    def app(environ, start_response):
        # (the value-help service of issue 33 beside the main one, on the same origin)
        path = environ.get("PATH_INFO", "")
        if path == "/_test/made-by-new-action":
            import json
            body = json.dumps(sorted(MADE_BY_NEW_ACTION)).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        # (work order 2's draft is ALICE's: CAP refuses a change of it by anyone else, 423; odatapy knows no locks)
        if environ.get("REQUEST_METHOD") in ("PATCH", "PUT", "DELETE", "MERGE") and \
                "WorkOrder(ID=2,IsActiveEntity=false)" in path.replace("%3D", "=").replace("%2C", ","):
            body = b'{"error":{"code":"DRAFT_LOCKED_BY_ANOTHER_USER","message":"The draft is locked by ALICE."}}'
            start_response("423 Locked", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path == "/ks" or path.startswith("/ks/"):
            return segments(environ, start_response)
        unquoted = path.replace("%3D", "=").replace("%2C", ",")
        if environ.get("REQUEST_METHOD") in ("PATCH", "MERGE") and unquoted.startswith("/odata/WorkOrder(") and \
                "IsActiveEntity=false" in unquoted:
            # (the service works out a draft's words from its title once odatapy has changed it)
            answer = list(main(environ, start_response))
            with store.lock:
                for order in store.entities("WorkOrder"):
                    if order.get_value("IsActiveEntity") is False:
                        order.set_property("words", len((order.get_value("title") or "").split()),
                                           ValueType.PRIMITIVE, "Edm.Int32")
            return answer
        return (helper if path == "/vh" or path.startswith("/vh/") else main)(environ, start_response)
    return app


def main():
    port = int(sys.argv[1])
    app = wsgi_app()
    server = make_server("127.0.0.1", port, app, server_class=Server, handler_class=QuietHandler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("serving http://127.0.0.1:%d/odata/" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
