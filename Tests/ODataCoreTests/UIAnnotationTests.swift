import ODataCore
import Testing

/// The `UI` vocabulary a service describes its screens with (issue 33): `UI.LineItem` and `UI.HeaderInfo`, inline
/// on a type, in `<Annotations Target="…">` blocks of `$metadata`, and in an annotation document of their own (as
/// SAP Gateway publishes a v2 service's), a later source overriding an earlier one term by term.
@Suite struct UIAnnotationTests {
    static let version2 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
            xmlns:sap="http://www.sap.com/Protocols/SAPData">
          <edmx:DataServices m:DataServiceVersion="2.0"
              xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
            <Schema Namespace="SHOP" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="OrderID"/></Key>
                <Property Name="OrderID" Type="Edm.String" Nullable="false" sap:label="Order"/>
                <Property Name="Customer" Type="Edm.String" sap:label="Sold-To Party"/>
                <Property Name="Amount" Type="Edm.Decimal" Precision="16" Scale="3" sap:label="Net Value"/>
                <Property Name="Currency" Type="Edm.String" sap:label="Currency"/>
                <Property Name="Note" Type="Edm.String"/>
              </EntityType>
              <EntityContainer Name="SHOP_Entities" m:IsDefaultEntityContainer="true">
                <EntitySet Name="OrderSet" EntityType="SHOP.Order"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    /// What SAP Gateway's annotation document for that service says: vocabularies by alias, targets by namespace.
    static let document = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/UI.xml">
            <edmx:Include Namespace="com.sap.vocabularies.UI.v1" Alias="UI"/>
          </edmx:Reference>
          <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/>
          </edmx:Reference>
          <edmx:Reference Uri="/sap/opu/odata/sap/SHOP/$metadata">
            <edmx:Include Namespace="SHOP" Alias="S"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="SHOP.Annotations" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <Annotations Target="S.Order">
                <Annotation Term="UI.HeaderInfo">
                  <Record Type="UI.HeaderInfoType">
                    <PropertyValue Property="TypeName" String="Sales Order"/>
                    <PropertyValue Property="TypeNamePlural" String="Sales Orders"/>
                    <PropertyValue Property="Title">
                      <Record Type="UI.DataField"><PropertyValue Property="Value" Path="OrderID"/></Record>
                    </PropertyValue>
                  </Record>
                </Annotation>
                <Annotation Term="UI.LineItem">
                  <Collection>
                    <Record Type="UI.DataField"><PropertyValue Property="Value" Path="OrderID"/></Record>
                    <Record Type="UI.DataFieldForAction">
                      <PropertyValue Property="Label" String="Release"/>
                      <PropertyValue Property="Action" String="SHOP.Release"/>
                    </Record>
                    <Record Type="UI.DataField">
                      <PropertyValue Property="Value" Path="Amount"/>
                      <PropertyValue Property="Label" String="Amount"/>
                      <Annotation Term="UI.Importance" EnumMember="UI.ImportanceType/High"/>
                    </Record>
                    <Record Type="UI.DataField">
                      <PropertyValue Property="Value" Path="Note"/>
                      <Annotation Term="UI.Hidden"/>
                    </Record>
                    <Record Type="UI.DataFieldWithUrl">
                      <PropertyValue Property="Value"><Path>Customer</Path></PropertyValue>
                      <PropertyValue Property="Url" String="https://example.invalid"/>
                    </Record>
                  </Collection>
                </Annotation>
                <Annotation Term="UI.LineItem" Qualifier="Narrow">
                  <Collection>
                    <Record Type="UI.DataField"><PropertyValue Property="Value" Path="Note"/></Record>
                  </Collection>
                </Annotation>
              </Annotations>
              <Annotations Target="S.Order/Note">
                <Annotation Term="Common.Label" String="Internal Note"/>
              </Annotations>
              <Annotations Target="S.Nothing">
                <Annotation Term="UI.LineItem"><Collection/></Annotation>
              </Annotations>
              <Annotations Target="S.Order/Missing">
                <Annotation Term="Common.Label" String="Nobody"/>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func an_annotation_document_gives_a_v2_type_its_columns_names_and_labels() throws {
        let model = try EDMXParser.merge(
            annotations: Array(Self.document.utf8), into: try EDMXParser.parse(Self.version2))
        let order = try #require(model.entityTypes["SHOP.Order"])
        // Actions and hidden fields are no columns; a Path written as an element counts like an attribute
        #expect(
            order.ui.lineItem == [
                DataField(path: "OrderID"), DataField(path: "Amount", label: "Amount", importance: .high),
                DataField(path: "Customer"),
            ])
        #expect(order.ui.typeName == "Sales Order")
        #expect(order.ui.typeNamePlural == "Sales Orders")
        #expect(order.titleProperties == ["OrderID"])
        // A property label from the document; sap:label stays where the document says nothing
        #expect(order.property(named: "Note")?.label == "Internal Note")
        #expect(order.property(named: "Customer")?.label == "Sold-To Party")
        // Targets that name nothing change nothing
        #expect(model.entityTypes.count == 1)
    }

    @Test func a_later_document_overrides_term_by_term() throws {
        let first = try EDMXParser.merge(
            annotations: Array(Self.document.utf8), into: try EDMXParser.parse(Self.version2))
        let later = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:DataServices><Schema Namespace="Local" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <Annotations Target="SHOP.Order">
                  <Annotation Term="com.sap.vocabularies.UI.v1.LineItem"><Collection>
                    <Record><PropertyValue Property="Value" Path="Currency"/></Record>
                  </Collection></Annotation>
                </Annotations>
              </Schema></edmx:DataServices>
            </edmx:Edmx>
            """
        let model = try EDMXParser.merge(annotations: Array(later.utf8), into: first)
        let order = try #require(model.entityTypes["SHOP.Order"])
        #expect(order.ui.lineItem == [DataField(path: "Currency")])
        #expect(order.ui.typeNamePlural == "Sales Orders")  // not named again: kept
    }

    @Test func a_qualified_block_or_annotation_is_a_variant_and_changes_nothing_the_screens_read() throws {
        let first = try EDMXParser.merge(
            annotations: Array(Self.document.utf8), into: try EDMXParser.parse(Self.version2))
        // Given a document whose block for phones is qualified, and a qualified label in an unqualified block
        let phone = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:DataServices><Schema Namespace="Local" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <Annotations Target="SHOP.Order" Qualifier="Phone">
                  <Annotation Term="com.sap.vocabularies.UI.v1.LineItem"><Collection>
                    <Record><PropertyValue Property="Value" Path="Currency"/></Record>
                  </Collection></Annotation>
                  <Annotation Term="com.sap.vocabularies.UI.v1.FieldGroup"><Record>
                    <PropertyValue Property="Data"><Collection>
                      <Record><PropertyValue Property="Value" Path="Currency"/></Record>
                    </Collection></PropertyValue>
                  </Record></Annotation>
                </Annotations>
                <Annotations Target="SHOP.Order/Amount">
                  <Annotation Term="com.sap.vocabularies.Common.v1.Label" Qualifier="Short" String="Amt"/>
                </Annotations>
                <Annotations Target="SHOP.Order/Amount" Qualifier="Phone">
                  <Annotation Term="com.sap.vocabularies.Common.v1.Label" String="Amt."/>
                </Annotations>
              </Schema></edmx:DataServices>
            </edmx:Edmx>
            """
        let model = try EDMXParser.merge(annotations: Array(phone.utf8), into: first)
        let order = try #require(model.entityTypes["SHOP.Order"])
        // Then the unqualified line item and label stand
        #expect(order.ui.lineItem == first.entityTypes["SHOP.Order"]?.ui.lineItem)
        #expect(order.property(named: "Amount")?.label == "Net Value")
        // And the block's qualifier names its field group, as a qualifier on the annotation would
        #expect(order.ui.fieldGroups["Phone"]?.data == [DataField(path: "Currency")])
    }

    @Test func inline_annotations_of_a_v4_type_are_read() throws {
        let metadata = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/UI.xml">
                <edmx:Include Namespace="com.sap.vocabularies.UI.v1" Alias="UI"/>
              </edmx:Reference>
              <edmx:DataServices><Schema Namespace="N" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <EntityType Name="Car">
                  <Key><PropertyRef Name="id"/></Key>
                  <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                  <Property Name="make" Type="Edm.String"/>
                  <Annotation Term="UI.HeaderInfo"><Record>
                    <PropertyValue Property="TypeName" String="Car"/>
                    <PropertyValue Property="TypeNamePlural"><String>Cars</String></PropertyValue>
                  </Record></Annotation>
                  <Annotation Term="UI.LineItem"><Collection>
                    <Record Type="UI.DataField"><PropertyValue Property="Value" Path="make"/>
                      <PropertyValue Property="Label" String="Make"/></Record>
                  </Collection></Annotation>
                </EntityType>
                <EntityContainer Name="C"><EntitySet Name="Cars" EntityType="N.Car"/></EntityContainer>
              </Schema></edmx:DataServices>
            </edmx:Edmx>
            """
        let car = try #require(try EDMXParser.parse(metadata).entityTypes["N.Car"])
        #expect(
            car.ui
                == UIAnnotations(
                    lineItem: [DataField(path: "make", label: "Make")], typeName: "Car", typeNamePlural: "Cars"))
    }

    @Test(arguments: [
        ("<!doctype html><html><body>Sign in</body></html>", "line 1"),
        ("{\"error\":\"no\"}", "line 1"),
        ("<Edmx><DataServices><Schema><Annotations Target=\"SHOP.Order\"><Annotation Term=", "line 1"),
        ("<feed/>", "<feed>"),
    ])
    func a_document_that_is_not_edmx_throws_and_leaves_nothing_half_merged(body: String, says: String) throws {
        let model = try EDMXParser.parse(Self.version2)
        #expect {
            _ = try EDMXParser.merge(annotations: Array(body.utf8), into: model)
        } throws: { error in
            "\(error)".contains(says)
        }
    }

    @Test func a_line_item_of_thousands_of_fields_is_cut() throws {
        let records = String(
            repeating: "<Record><PropertyValue Property=\"Value\" Path=\"Customer\"/></Record>", count: 5_000)
        let body = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="A" xmlns="http://docs.oasis-open.org/odata/ns/edm"><Annotations Target="SHOP.Order">
            <Annotation Term="com.sap.vocabularies.UI.v1.LineItem"><Collection>\(records)</Collection></Annotation>
            </Annotations></Schema></edmx:DataServices></edmx:Edmx>
            """
        let model = try EDMXParser.merge(annotations: Array(body.utf8), into: try EDMXParser.parse(Self.version2))
        #expect(model.entityTypes["SHOP.Order"]?.ui.lineItem?.count == 64)
    }

    // MARK: - Where a service document says its annotations are

    @Test func an_atom_service_document_names_its_annotation_document() {
        let body = """
            <?xml version="1.0" encoding="utf-8"?><app:service xml:base="http://h/sap/opu/odata/sap/SHOP/"
              xmlns:app="http://www.w3.org/2007/app" xmlns:atom="http://www.w3.org/2005/Atom">
              <atom:link rel="self" href="http://h/sap/opu/odata/sap/SHOP/"/>
              <atom:link rel="http://www.sap.com/Protocols/SAPData/annotations" href="annotations"/>
              <atom:link rel="x/annotations" href="javascript:alert(1)"/>
              <atom:link rel="x/annotations" href="/elsewhere/anno.xml"/>
              <app:workspace/></app:service>
            """
        #expect(
            AnnotationLinks.links(in: Array(body.utf8), root: "http://h/sap/opu/odata/sap/SHOP/") == [
                "http://h/sap/opu/odata/sap/SHOP/annotations", "http://h/elsewhere/anno.xml",
            ])
    }

    @Test func a_json_service_document_names_its_annotation_document() {
        let body = #"{"d":{"EntitySets":["OrderSet"],"__annotations":"http://h/SHOP/annotations"}}"#
        #expect(AnnotationLinks.links(in: Array(body.utf8), root: "http://h/SHOP/") == ["http://h/SHOP/annotations"])
        let v4 = #"{"@odata.context":"$metadata","value":[{"name":"Orders","url":"Orders"}]}"#
        #expect(AnnotationLinks.links(in: Array(v4.utf8), root: "http://h/").isEmpty)
        #expect(AnnotationLinks.links(in: Array("<html>".utf8), root: "http://h/").isEmpty)
    }

    @Test(arguments: [
        (
            "https://h:44300/sap/opu/odata/sap/ZSALES_SRV/",
            "https://h:44300/sap/opu/odata/IWFND/CATALOGSERVICE;v=2/Annotations(TechnicalName='ZSALES_SRV_VAN',"
                + "Version='0001')/$value"
        ),
        (
            "http://h/proxy/sap/opu/odata/IWBEP/gwsample_basic;v=2",
            "http://h/proxy/sap/opu/odata/IWFND/CATALOGSERVICE;v=2/Annotations(TechnicalName='GWSAMPLE_BASIC_VAN',"
                + "Version='0001')/$value"
        ),
    ])
    func a_gateway_v2_root_has_its_catalog_annotation_document(root: String, catalog: String) {
        #expect(AnnotationLinks.catalogDocument(forServiceAt: root) == catalog)
    }

    @Test(arguments: [
        "http://h/CarDealer.svc/",  // not Gateway
        "http://h/sap/opu/odata4/sap/zsrv/srvd/sap/zsrv/0001/",  // v4
        "http://h/sap/opu/odata/sap/ZSRV/OrderSet",  // an entity set under it
        "http://h/sap/opu/odata/sap/Z'SRV/",  // a name that would break out of the quotes
        "http://h/sap/opu/odata/sap/ZSRVß/",  // not ASCII
        "http://h/sap/opu/odata/IWFND/CATALOGSERVICE;v=2/",  // the catalog itself
    ])
    func other_roots_have_none(root: String) {
        #expect(AnnotationLinks.catalogDocument(forServiceAt: root) == nil)
    }
}

/// A detail's sections (issue 33): `UI.Facets` of reference facets to field groups, the identification and a
/// navigation's line item, and collection facets of them.
@Suite struct FacetTests {
    static let metadata = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/UI.xml">
            <edmx:Include Namespace="com.sap.vocabularies.UI.v1" Alias="UI"/>
          </edmx:Reference>
          <edmx:DataServices><Schema Namespace="N" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="Order">
              <Key><PropertyRef Name="id"/></Key>
              <Property Name="id" Type="Edm.Int32" Nullable="false"/>
              <Property Name="amount" Type="Edm.Decimal"/>
              <Property Name="note" Type="Edm.String"/>
              <NavigationProperty Name="items" Type="Collection(N.Item)"/>
            </EntityType>
            <EntityType Name="Item"><Key><PropertyRef Name="no"/></Key>
              <Property Name="no" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="N.Order"/></EntityContainer>
            <Annotations Target="N.Order">
              <Annotation Term="UI.FieldGroup" Qualifier="Money"><Record>
                <PropertyValue Property="Label" String="Money"/>
                <PropertyValue Property="Data"><Collection>
                  <Record Type="UI.DataField"><PropertyValue Property="Value" Path="amount"/></Record>
                </Collection></PropertyValue>
              </Record></Annotation>
              <Annotation Term="UI.Identification"><Collection>
                <Record Type="UI.DataField"><PropertyValue Property="Value" Path="id"/></Record>
              </Collection></Annotation>
              <Annotation Term="UI.Facets"><Collection>
                <Record Type="UI.CollectionFacet">
                  <PropertyValue Property="Label" String="Header"/>
                  <PropertyValue Property="Facets"><Collection>
                    <Record Type="UI.ReferenceFacet">
                      <PropertyValue Property="Target" AnnotationPath="@UI.Identification"/>
                    </Record>
                    <Record Type="UI.ReferenceFacet">
                      <PropertyValue Property="Label" String="Money"/>
                      <PropertyValue Property="Target"
                        AnnotationPath="@com.sap.vocabularies.UI.v1.FieldGroup#Money"/>
                    </Record>
                  </Collection></PropertyValue>
                </Record>
                <Record Type="UI.ReferenceFacet">
                  <PropertyValue Property="Label" String="Items"/>
                  <PropertyValue Property="Target" AnnotationPath="items/@UI.LineItem"/>
                </Record>
                <Record Type="UI.ReferenceFacet">
                  <PropertyValue Property="Label" String="Chart"/>
                  <PropertyValue Property="Target" AnnotationPath="@UI.Chart"/>
                </Record>
                <Record Type="UI.ReferenceFacet">
                  <PropertyValue Property="Label" String="Nothing"/>
                </Record>
              </Collection></Annotation>
            </Annotations>
          </Schema></edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func facets_field_groups_and_the_identification_are_read() throws {
        let ui = try #require(try EDMXParser.parse(Self.metadata).entityTypes["N.Order"]?.ui)
        // (a facet to a chart, or to nothing, is left out)
        #expect(
            ui.facets == [
                Facet(
                    label: "Header", target: .collection,
                    facets: [
                        Facet(label: nil, target: .identification), Facet(label: "Money", target: .fieldGroup("Money")),
                    ]),
                Facet(label: "Items", target: .lineItem(navigation: "items")),
            ])
        #expect(ui.fieldGroups == ["Money": FieldGroup(label: "Money", data: [DataField(path: "amount")])])
        #expect(ui.identification == [DataField(path: "id")])
    }

    @Test func collection_facets_nested_past_the_limit_are_cut() throws {
        var facet =
            "<Record Type=\"UI.ReferenceFacet\"><PropertyValue Property=\"Target\" AnnotationPath=\"@UI.Identification\"/></Record>"
        for _ in 0..<15 {  // (the XML reader refuses more than 64 levels of elements)
            facet =
                "<Record Type=\"UI.CollectionFacet\"><PropertyValue Property=\"Facets\"><Collection>\(facet)</Collection></PropertyValue></Record>"
        }
        let metadata = Self.metadata.replacingOccurrences(
            of: "<Annotation Term=\"UI.Facets\"><Collection>",
            with: "<Annotation Term=\"UI.Facets\"><Collection>\(facet)")
        let ui = try #require(try EDMXParser.parse(metadata).entityTypes["N.Order"]?.ui)
        // The facet nested past the limit holds nothing within it, so it is left out; the others stay
        #expect(ui.facets?.map(\.label) == ["Header", "Items"])
    }

    @Test func a_document_of_thousands_of_facets_is_cut() throws {
        let reference =
            "<Record Type=\"UI.ReferenceFacet\"><PropertyValue Property=\"Target\" AnnotationPath=\"@UI.Identification\"/></Record>"
        let collection =
            "<Record Type=\"UI.CollectionFacet\"><PropertyValue Property=\"Facets\"><Collection>"
            + String(repeating: reference, count: 60) + "</Collection></PropertyValue></Record>"
        let metadata = Self.metadata.replacingOccurrences(
            of: "<Annotation Term=\"UI.Facets\"><Collection>",
            with: "<Annotation Term=\"UI.Facets\"><Collection>" + String(repeating: collection, count: 60))
        let ui = try #require(try EDMXParser.parse(metadata).entityTypes["N.Order"]?.ui)
        func count(_ facets: [Facet]) -> Int { facets.reduce(0) { $0 + 1 + count($1.facets) } }
        #expect(count(ui.facets ?? []) <= 128)
    }
}

/// Values a service relates to others (issue 33): a code's readable text (`sap:text`, `Common.Text` with its
/// `UI.TextArrangement`), an amount's currency and a quantity's unit (`sap:unit` with the unit's `sap:semantics`,
/// `Measures.ISOCurrency`, `Measures.Unit`, by path or as a code).
@Suite struct RelatedValueAnnotationTests {
    @Test func v2_sap_unit_is_a_currency_when_the_unit_says_it_is_a_currency_code() throws {
        let metadata = UIAnnotationTests.version2.replacingOccurrences(
            of: #"<Property Name="Amount" Type="Edm.Decimal" Precision="16" Scale="3" sap:label="Net Value"/>"#,
            with: #"""
                <Property Name="Amount" Type="Edm.Decimal" sap:unit="Currency"/>
                <Property Name="Weight" Type="Edm.Decimal" sap:unit="WeightUnit"/>
                <Property Name="WeightUnit" Type="Edm.String" sap:semantics="unit-of-measure"/>
                <Property Name="Status" Type="Edm.String" sap:text="StatusText"/>
                <Property Name="StatusText" Type="Edm.String"/>
                """#
        ).replacingOccurrences(
            of: #"<Property Name="Currency" Type="Edm.String" sap:label="Currency"/>"#,
            with: #"<Property Name="Currency" Type="Edm.String" sap:semantics="currency-code"/>"#)
        let order = try #require(try EDMXParser.parse(metadata).entityTypes["SHOP.Order"])
        #expect(order.property(named: "Amount")?.unit == .currency(path: "Currency"))
        #expect(order.property(named: "Weight")?.unit == .unit(path: "WeightUnit"))
        #expect(order.property(named: "Status")?.textProperty == "StatusText")
        #expect(order.property(named: "Status")?.textArrangement == .textFirst)
    }

    @Test func v4_common_text_and_measures_are_read() throws {
        let metadata = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
                <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/></edmx:Reference>
              <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/UI.xml">
                <edmx:Include Namespace="com.sap.vocabularies.UI.v1" Alias="UI"/></edmx:Reference>
              <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Measures.V1.xml">
                <edmx:Include Namespace="Org.OData.Measures.V1" Alias="Measures"/></edmx:Reference>
              <edmx:DataServices><Schema Namespace="N" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
                  <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                  <Property Name="status" Type="Edm.String">
                    <Annotation Term="Common.Text" Path="statusText">
                      <Annotation Term="UI.TextArrangement" EnumMember="UI.TextArrangementType/TextLast"/>
                    </Annotation>
                  </Property>
                  <Property Name="statusText" Type="Edm.String"/>
                  <Property Name="net" Type="Edm.Decimal"><Annotation Term="Measures.ISOCurrency" Path="currency"/></Property>
                  <Property Name="cost" Type="Edm.Decimal"><Annotation Term="Measures.ISOCurrency" String="EUR"/></Property>
                  <Property Name="weight" Type="Edm.Decimal"><Annotation Term="Measures.Unit" String="kg"/></Property>
                  <Property Name="currency" Type="Edm.String"/>
                </EntityType>
                <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="N.Order"/></EntityContainer>
              </Schema></edmx:DataServices>
            </edmx:Edmx>
            """
        let order = try #require(try EDMXParser.parse(metadata).entityTypes["N.Order"])
        #expect(order.property(named: "status")?.textProperty == "statusText")
        #expect(order.property(named: "status")?.textArrangement == .textLast)
        #expect(order.property(named: "net")?.unit == .currency(path: "currency"))
        #expect(order.property(named: "cost")?.unit == .currencyCode("EUR"))
        #expect(order.property(named: "weight")?.unit == .unitCode("kg"))
    }
}

/// A list's default order (issue 33): `UI.PresentationVariant`'s `SortOrder`.
@Suite struct SortOrderAnnotationTests {
    @Test func the_presentation_variants_sort_order_is_read() throws {
        let metadata = FacetTests.metadata.replacingOccurrences(
            of: "<Annotation Term=\"UI.Identification\">",
            with: """
                <Annotation Term="UI.PresentationVariant"><Record>
                  <PropertyValue Property="SortOrder"><Collection>
                    <Record><PropertyValue Property="Property" PropertyPath="amount"/>
                      <PropertyValue Property="Descending" Bool="true"/></Record>
                    <Record><PropertyValue Property="Property" PropertyPath="id"/></Record>
                    <Record><PropertyValue Property="Property" PropertyPath="items/no"/></Record>
                  </Collection></PropertyValue>
                </Record></Annotation>
                <Annotation Term="UI.Identification">
                """)
        let ui = try #require(try EDMXParser.parse(metadata).entityTypes["N.Order"]?.ui)
        // (a path through a navigation is no order a list of these can be asked for)
        #expect(ui.sortOrder?.map(\.property) == ["amount", "id"])
        #expect(ui.sortOrder?.map(\.descending) == [true, false])
    }
}

/// What a service hides, and what it makes read-only or mandatory for every entity (issue 33): `UI.Hidden`,
/// `Common.FieldControl` as a fixed member, `sap:visible`. (By path they vary per entity, and are not read.)
@Suite struct FieldControlAnnotationTests {
    @Test func hidden_read_only_and_mandatory_fields_are_read() throws {
        let metadata = FacetTests.metadata.replacingOccurrences(
            of: #"<Property Name="note" Type="Edm.String"/>"#,
            with: """
                <Property Name="note" Type="Edm.String"><Annotation Term="UI.Hidden"/></Property>
                <Property Name="code" Type="Edm.String">
                  <Annotation Term="com.sap.vocabularies.Common.v1.FieldControl"
                    EnumMember="com.sap.vocabularies.Common.v1.FieldControlType/ReadOnly"/></Property>
                <Property Name="name" Type="Edm.String">
                  <Annotation Term="com.sap.vocabularies.Common.v1.FieldControl"
                    EnumMember="com.sap.vocabularies.Common.v1.FieldControlType/Mandatory"/></Property>
                <Property Name="varies" Type="Edm.String">
                  <Annotation Term="UI.Hidden" Path="isSecret"/>
                  <Annotation Term="com.sap.vocabularies.Common.v1.FieldControl" Path="control"/></Property>
                """)
        let order = try #require(try EDMXParser.parse(metadata).entityTypes["N.Order"])
        #expect(order.property(named: "note")?.isHidden == true)
        #expect(order.property(named: "code")?.isUpdatable == false)
        #expect(order.property(named: "code")?.isCreatable == false)
        #expect(order.property(named: "name")?.isMandatory == true)
        #expect(order.property(named: "varies")?.isHidden == false)
        #expect(order.property(named: "varies")?.isUpdatable == true)
        let version2 = UIAnnotationTests.version2.replacingOccurrences(
            of: #"<Property Name="Note" Type="Edm.String"/>"#,
            with: #"<Property Name="Note" Type="Edm.String" sap:visible="false"/>"#)
        #expect(try EDMXParser.parse(version2).entityTypes["SHOP.Order"]?.property(named: "Note")?.isHidden == true)
    }
}

/// `UI.Criticality` read from `$metadata` (issue 33): on a property (the term) and on a line item's data field (its
/// `Criticality`, with `CriticalityRepresentation`), by a path or once for all; levels read from numbers and texts.
@Suite struct CriticalityAnnotationTests {
    static let metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/UI.xml">
            <edmx:Include Namespace="com.sap.vocabularies.UI.v1" Alias="UI"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="status" Type="Edm.String">
                  <Annotation Term="UI.Criticality" Path="statusLevel"/>
                </Property>
                <Property Name="statusLevel" Type="Edm.Byte"/>
                <Property Name="blocked" Type="Edm.Boolean">
                  <Annotation Term="UI.Criticality" EnumMember="UI.CriticalityType/Negative"/>
                </Property>
                <Property Name="owner" Type="Edm.String">
                  <Annotation Term="UI.Criticality" Path="Customer/level"/>
                </Property>
                <Annotation Term="UI.LineItem">
                  <Collection>
                    <Record Type="UI.DataField">
                      <PropertyValue Property="Value" Path="status"/>
                      <PropertyValue Property="Criticality" Path="statusLevel"/>
                      <PropertyValue Property="CriticalityRepresentation"
                          EnumMember="UI.CriticalityRepresentationType/WithoutIcon"/>
                    </Record>
                    <Record Type="UI.DataField">
                      <PropertyValue Property="Value" Path="blocked"/>
                      <PropertyValue Property="Criticality"><EnumMember>UI.CriticalityType/Critical</EnumMember>
                      </PropertyValue>
                    </Record>
                    <Record Type="UI.DataField">
                      <PropertyValue Property="Value" Path="owner"/>
                      <PropertyValue Property="Criticality" EnumMember="UI.CriticalityType/Dreadful"/>
                    </Record>
                  </Collection>
                </Annotation>
              </EntityType>
              <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="Shop.Order"/></EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func a_property_and_a_data_field_say_how_good_or_bad_a_value_is() throws {
        let model = try EDMXParser.parse(Array(Self.metadata.utf8))
        let type = try #require(model.entityType(ofSet: "Orders"))
        let property = { (name: String) in type.properties.first { $0.name == name }?.criticality }
        #expect(property("status") == .path("statusLevel"))
        #expect(property("blocked") == .fixed(.negative))
        // (a path through a navigation is not followed: no criticality)
        #expect(property("owner") == nil)
        let fields = try #require(type.ui.lineItem)
        #expect(fields.map(\.criticality) == [.path("statusLevel"), .fixed(.critical), nil])
        #expect(fields.map(\.marksCriticality) == [false, true, true])
    }

    @Test func a_level_is_read_from_numbers_and_texts_and_nothing_else() {
        let values: [(ODataValue, Criticality.Level?)] = [
            (.int(1), .negative), (.string(" 3 "), .positive), (.decimal("2"), .critical), (.int(-1), .veryNegative),
            (.int(5), .information), (.int(9), nil), (.string("high"), nil), (.null, nil), (.bool(true), nil),
            (.double(0), .neutral), (.int(Int64.max), nil),
        ]
        for (value, level) in values {
            #expect(Criticality.path("x").level { _ in value } == level, "\(value)")
        }
        #expect(Criticality.path("x").level { _ in nil } == nil)
        #expect(Criticality.fixed(.critical).level { _ in nil } == .critical)
        #expect(Criticality.Level(member: "com.sap.vocabularies.UI.v1.CriticalityType/VeryPositive") == .veryPositive)
        #expect(Criticality.Level(member: "Information") == .information)
        #expect(Criticality.Level(member: "UI.CriticalityType/Unheard") == nil)
    }
}

/// `Common.ValueList` read from `$metadata` (issue 33): its collection, its label, and its parameters by kind;
/// `Common.ValueListWithFixedValues` and v2 `sap:value-list="fixed-values"`. A list that names no collection, or
/// gives nothing back to the form, is none.
@Suite struct ValueListAnnotationTests {
    static let metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="country" Type="Edm.String"/>
                <Property Name="region" Type="Edm.String">
                  <Annotation Term="Common.ValueList">
                    <Record Type="Common.ValueListType">
                      <PropertyValue Property="Label" String="Regions"/>
                      <PropertyValue Property="CollectionPath" String="Regions"/>
                      <PropertyValue Property="Parameters">
                        <Collection>
                          <Record Type="Common.ValueListParameterIn">
                            <PropertyValue Property="LocalDataProperty" PropertyPath="country"/>
                            <PropertyValue Property="ValueListProperty" String="Country"/>
                          </Record>
                          <Record Type="Common.ValueListParameterInOut">
                            <PropertyValue Property="LocalDataProperty" PropertyPath="region"/>
                            <PropertyValue Property="ValueListProperty" String="Code"/>
                          </Record>
                          <Record Type="Common.ValueListParameterDisplayOnly">
                            <PropertyValue Property="ValueListProperty" String="Name"/>
                          </Record>
                          <Record Type="Common.ValueListParameterConstant">
                            <PropertyValue Property="ValueListProperty" String="Kind"/>
                            <PropertyValue Property="Constant" String="A"/>
                          </Record>
                          <Record Type="Common.ValueListParameterOut">
                            <PropertyValue Property="LocalDataProperty" PropertyPath="to_Country/Name"/>
                            <PropertyValue Property="ValueListProperty" String="CountryName"/>
                          </Record>
                        </Collection>
                      </PropertyValue>
                    </Record>
                  </Annotation>
                  <Annotation Term="Common.ValueListWithFixedValues"/>
                </Property>
                <Property Name="noCollection" Type="Edm.String">
                  <Annotation Term="Common.ValueList">
                    <Record><PropertyValue Property="Parameters"><Collection/></PropertyValue></Record>
                  </Annotation>
                </Property>
                <Property Name="givesNothingBack" Type="Edm.String">
                  <Annotation Term="Common.ValueList">
                    <Record>
                      <PropertyValue Property="CollectionPath" String="Regions"/>
                      <PropertyValue Property="Parameters"><Collection>
                        <Record Type="Common.ValueListParameterDisplayOnly">
                          <PropertyValue Property="ValueListProperty" String="Name"/>
                        </Record>
                      </Collection></PropertyValue>
                    </Record>
                  </Annotation>
                </Property>
              </EntityType>
              <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="Shop.Order"/></EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func a_value_list_is_read_with_its_parameters_by_kind() throws {
        let model = try EDMXParser.parse(Array(Self.metadata.utf8))
        let properties = try #require(model.entityType(ofSet: "Orders")?.properties)
        let region = try #require(properties.first { $0.name == "region" })
        let list = try #require(region.valueList)
        #expect(list.collectionPath == "Regions" && list.label == "Regions")
        // (a constant is not read; an out parameter into a path through a navigation is not either)
        #expect(list.parameters.map(\.kind) == [.in, .inOut, .displayOnly])
        #expect(list.inputs.map(\.local) == ["country"] && list.inputs.map(\.to) == ["Country"])
        #expect(list.outputs.map(\.local) == ["region"] && list.outputs.map(\.from) == ["Code"])
        #expect(region.hasFixedValues)
        for name in ["noCollection", "givesNothingBack"] {
            #expect(properties.first { $0.name == name }?.valueList == nil, "\(name)")
        }
        #expect(properties.first { $0.name == "country" }?.hasFixedValues == false)
    }

    @Test func version_2_says_fixed_values_in_an_attribute() throws {
        let metadata = UIAnnotationTests.version2.replacingOccurrences(
            of: #"<Property Name="Currency" Type="Edm.String" sap:label="Currency"/>"#,
            with: #"<Property Name="Currency" Type="Edm.String" sap:label="Currency" sap:value-list="fixed-values"/>"#)
        let model = try EDMXParser.parse(Array(metadata.utf8))
        let properties = try #require(model.entityType(ofSet: "OrderSet")?.properties)
        #expect(properties.first { $0.name == "Currency" }?.hasFixedValues == true)
        #expect(properties.first { $0.name == "Customer" }?.hasFixedValues == false)
    }
}

/// `UI.Chart` read from `$metadata` (issue 33): qualified or not, in order; its title, type, dimensions and measures;
/// one without a measure or a dimension of the type's own is none.
@Suite struct ChartAnnotationTests {
    @Test func charts_are_read_with_their_axes() throws {
        let metadata = CriticalityAnnotationTests.metadata.replacingOccurrences(
            of: "<Annotation Term=\"UI.LineItem\">",
            with: """
                <Annotation Term="UI.Chart" Qualifier="Trend">
                  <Record Type="UI.ChartDefinitionType">
                    <PropertyValue Property="Title" String="Status by order"/>
                    <PropertyValue Property="ChartType" EnumMember="UI.ChartType/Line"/>
                    <PropertyValue Property="Dimensions"><Collection><PropertyPath>id</PropertyPath>
                      <PropertyPath>Customer/since</PropertyPath></Collection></PropertyValue>
                    <PropertyValue Property="Measures"><Collection><PropertyPath>statusLevel</PropertyPath>
                    </Collection></PropertyValue>
                  </Record>
                </Annotation>
                <Annotation Term="UI.Chart">
                  <Record><PropertyValue Property="Dimensions"><Collection><PropertyPath>id</PropertyPath>
                    </Collection></PropertyValue></Record>
                </Annotation>
                <Annotation Term="UI.LineItem">
                """)
        let type = try #require(try EDMXParser.parse(Array(metadata.utf8)).entityType(ofSet: "Orders"))
        #expect(
            type.ui.charts == [
                ChartDefinition(
                    title: "Status by order", chartType: "Line", dimensions: ["id"], measures: ["statusLevel"])
            ])
    }
}
