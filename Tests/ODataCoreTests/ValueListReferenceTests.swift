import Testing

@testable import ODataCore

/// `Common.ValueListReferences` and `Common.ValueListMapping` (issue 33): a property names the `$metadata` of the
/// service that lists its values, relative to its own service's, and that service aims a mapping at the property.
@Suite struct ValueListReferenceTests {
    static let root = "https://erp.example/sap/opu/odata4/sap/api_salesorder/srvd_a2x/sap/salesorder/0001/"

    @Test func a_raps_relative_reference_resolves_to_the_value_help_services_root() {
        let reference =
            "../../../../srvd_f4/sap/i_customer_vh/0001;ps='srvd_a2x-salesorder-0001';va='com.sap.gateway.srvd_a2x."
            + "salesorder.v0001.et-salesorder.soldtoparty'/$metadata"
        #expect(
            ValueListReference.serviceRoot(of: reference, forServiceAt: Self.root)
                == .success(
                    "https://erp.example/sap/opu/odata4/sap/api_salesorder/srvd_f4/sap/i_customer_vh/0001;"
                        + "ps='srvd_a2x-salesorder-0001';va='com.sap.gateway.srvd_a2x.salesorder.v0001.et-salesorder."
                        + "soldtoparty'/"))
    }

    @Test func absolute_paths_and_urls_on_the_same_origin_are_followed() {
        #expect(
            ValueListReference.serviceRoot(of: "/vh/$metadata", forServiceAt: "http://127.0.0.1:8080/odata/")
                == .success("http://127.0.0.1:8080/vh/"))
        // (the port a scheme implies is the same origin as the one written out; the host's case does not matter)
        #expect(
            ValueListReference.serviceRoot(
                of: "HTTPS://ERP.example:443/help/$metadata?sap-client=100", forServiceAt: Self.root)
                == .success("https://erp.example/help/"))
        #expect(
            ValueListReference.serviceRoot(of: "//erp.example/help/%24metadata", forServiceAt: Self.root)
                == .success("https://erp.example/help/"))
        // (`..` never climbs above the root)
        #expect(
            ValueListReference.serviceRoot(of: "../../../../../../../../../x/./$metadata", forServiceAt: Self.root)
                == .success("https://erp.example/x/"))
    }

    @Test func references_elsewhere_or_to_no_metadata_are_refused() {
        #expect(
            ValueListReference.serviceRoot(of: "https://evil.example/$metadata", forServiceAt: Self.root)
                == .failure(.anotherOrigin("evil.example")))
        #expect(
            ValueListReference.serviceRoot(of: "http://erp.example/help/$metadata", forServiceAt: Self.root)
                == .failure(.anotherOrigin("erp.example")))
        #expect(
            ValueListReference.serviceRoot(of: "https://erp.example:8443/help/$metadata", forServiceAt: Self.root)
                == .failure(.anotherOrigin("erp.example:8443")))
        #expect(
            ValueListReference.serviceRoot(of: "https://me@evil.example/$metadata", forServiceAt: Self.root)
                == .failure(.anotherOrigin("me@evil.example")))
        // (a host that only looks like the service's once Unicode has its way with it)
        #expect(
            ValueListReference.serviceRoot(of: "https://erp.example\u{212A}/$metadata", forServiceAt: Self.root)
                == .failure(.anotherOrigin("erp.example\u{212A}")))
        #expect(
            ValueListReference.serviceRoot(of: "https://erp.example\\@evil.example/$metadata", forServiceAt: Self.root)
                == .failure(.anotherOrigin("erp.example\\@evil.example")))
        #expect(
            ValueListReference.serviceRoot(of: "///evil.example/$metadata", forServiceAt: Self.root)
                == .success("https://erp.example///evil.example/"))
        #expect(
            ValueListReference.serviceRoot(of: "file:///etc/passwd", forServiceAt: Self.root) == .failure(.notHTTP))
        #expect(
            ValueListReference.serviceRoot(of: "javascript:alert(1)", forServiceAt: Self.root) == .failure(.notHTTP))
        #expect(
            ValueListReference.serviceRoot(of: "../help/Customers", forServiceAt: Self.root)
                == .failure(.notMetadata))
        #expect(ValueListReference.serviceRoot(of: "", forServiceAt: Self.root) == .failure(.notMetadata))
    }

    static let main = """
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
          <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="com.example.sales" Alias="SAP__self">
              <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="customer" Type="Edm.String">
                  <Annotation Term="Common.ValueListReferences">
                    <Collection>
                      <String>../../srvd_f4/sap/i_customer/0001/$metadata</String>
                      <String>  </String>
                      <String>../../srvd_f4/sap/i_customer/0001/$metadata</String>
                    </Collection>
                  </Annotation>
                </Property>
                <Property Name="region" Type="Edm.String"/>
              </EntityType>
              <EntityContainer Name="Container"><EntitySet Name="Orders" EntityType="SAP__self.Order"/></EntityContainer>
              <Annotations Target="SAP__self.Order/region">
                <Annotation Term="Common.ValueListReferences">
                  <Collection><String>../../srvd_f4/sap/i_region/0001/$metadata</String></Collection>
                </Annotation>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func a_propertys_references_are_read_inline_and_from_annotations_blocks() throws {
        let model = try EDMXParser.parse(Self.main)
        let properties = try #require(model.entityType(ofSet: "Orders")?.properties)
        // (blank and repeated ones left out)
        #expect(
            properties.first { $0.name == "customer" }?.valueListReferences == [
                "../../srvd_f4/sap/i_customer/0001/$metadata"
            ])
        #expect(
            properties.first { $0.name == "region" }?.valueListReferences == [
                "../../srvd_f4/sap/i_region/0001/$metadata"
            ])
        #expect(properties.first { $0.name == "id" }?.valueListReferences == [])
    }

    static let help = """
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
          <edmx:Reference Uri="../../../srvd/sap/sales/0001/$metadata">
            <edmx:Include Namespace="com.example.sales" Alias="Sales"/>
          </edmx:Reference>
          <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="VL"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="help.customer">
              <EntityType Name="Customer"><Key><PropertyRef Name="code"/></Key>
                <Property Name="code" Type="Edm.String" Nullable="false"/>
                <Property Name="name" Type="Edm.String"/>
                <Property Name="country" Type="Edm.String"/>
              </EntityType>
              <EntityContainer Name="Container">
                <EntitySet Name="Customers" EntityType="help.customer.Customer"/>
                <EntitySet Name="CustomersByCountry" EntityType="help.customer.Customer"/>
              </EntityContainer>
              <Annotations Target="Sales.Order/customer">
                <Annotation Term="VL.ValueListMapping" Qualifier="ByCountry">
                  <Record>
                    <PropertyValue Property="CollectionPath" String="CustomersByCountry"/>
                    <PropertyValue Property="Parameters"><Collection>
                      <Record Type="VL.ValueListParameterInOut">
                        <PropertyValue Property="LocalDataProperty" PropertyPath="customer"/>
                        <PropertyValue Property="ValueListProperty" String="code"/>
                      </Record>
                    </Collection></PropertyValue>
                  </Record>
                </Annotation>
                <Annotation Term="VL.ValueListMapping">
                  <Record>
                    <PropertyValue Property="Label" String="Customers"/>
                    <PropertyValue Property="CollectionPath" String="Customers"/>
                    <PropertyValue Property="Parameters"><Collection>
                      <Record Type="VL.ValueListParameterInOut">
                        <PropertyValue Property="LocalDataProperty" PropertyPath="customer"/>
                        <PropertyValue Property="ValueListProperty" String="code"/>
                      </Record>
                      <Record Type="VL.ValueListParameterDisplayOnly">
                        <PropertyValue Property="ValueListProperty" String="name"/>
                      </Record>
                    </Collection></PropertyValue>
                  </Record>
                </Annotation>
                <Annotation Term="VL.ValueListMapping" Qualifier="WritesNothing">
                  <Record>
                    <PropertyValue Property="CollectionPath" String="Customers"/>
                    <PropertyValue Property="Parameters"><Collection>
                      <Record Type="VL.ValueListParameterDisplayOnly">
                        <PropertyValue Property="ValueListProperty" String="name"/>
                      </Record>
                    </Collection></PropertyValue>
                  </Record>
                </Annotation>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func a_value_help_services_mappings_are_found_by_the_property_they_are_aimed_at() throws {
        let model = try EDMXParser.parse(Self.help)
        let mappings = model.valueListMappings(for: "customer", ofType: "com.example.sales.Order")
        // The unqualified one first; one that writes nothing back is no mapping
        #expect(mappings.map(\.collectionPath) == ["Customers", "CustomersByCountry"])
        #expect(mappings.first?.label == "Customers")
        #expect(mappings.first?.outputs.map(\.from) == ["code"])
        #expect(mappings.first?.parameters.map(\.kind) == [.inOut, .displayOnly])
        // Another property, or the same name of another type, has none
        #expect(model.valueListMappings(for: "region", ofType: "com.example.sales.Order").isEmpty)
        #expect(model.valueListMappings(for: "customer", ofType: "help.customer.Customer").isEmpty)
    }

    @Test func a_mapping_aimed_at_an_actions_parameter_is_found_by_the_actions_targets() throws {
        // Given a value-help service aiming at the parameter of an action bound to an order, through its aliases
        let model = try EDMXParser.parse(
            Self.help.replacingOccurrences(
                of: #"<Annotations Target="Sales.Order/customer">"#,
                with: #"<Annotations Target="Sales.Reassign( Sales.Order )/customer">"#))
        var reassign = ServiceOperation(
            kind: .action, name: "com.example.sales.Reassign",
            parameters: [.init(name: "customer", type: .primitive(.string))], method: .post, dialect: .v4)
        reassign.qualifiedName = "com.example.sales.Reassign"
        reassign.boundType = "com.example.sales.Order"
        #expect(
            reassign.valueListTargets(of: "customer") == [
                "com.example.sales.Reassign(com.example.sales.Order)/customer", "com.example.sales.Reassign/customer",
            ])
        // Then its mappings are found through the action's own target, and not for the type's property
        #expect(
            model.valueListMappings(at: reassign.valueListTargets(of: "customer")).map(\.collectionPath) == [
                "Customers", "CustomersByCountry",
            ])
        #expect(model.valueListMappings(for: "customer", ofType: "com.example.sales.Order").isEmpty)
        // And the action's parameter reads its references like a property
        let main = try EDMXParser.parse(
            """
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
              <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="S">
                <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
                  <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
                <Action Name="Reassign" IsBound="true"><Parameter Name="order" Type="S.Order"/>
                  <Parameter Name="customer" Type="Edm.String"/></Action>
                <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="S.Order"/></EntityContainer>
                <Annotations Target="S.Reassign(S.Order)/customer">
                  <Annotation Term="com.sap.vocabularies.Common.v1.ValueListReferences"><Collection>
                    <String>../../srvd_f4/sap/i_customer/0001/$metadata</String></Collection></Annotation>
                </Annotations>
              </Schema></edmx:DataServices></edmx:Edmx>
            """)
        #expect(
            main.operations.first?.parameters.first { $0.name == "customer" }?.valueListReferences == [
                "../../srvd_f4/sap/i_customer/0001/$metadata"
            ])
    }

    @Test func mappings_in_an_annotation_document_are_merged_like_the_services_own() throws {
        let bare = try EDMXParser.parse(
            Self.help.replacingOccurrences(
                of: #"<Annotations Target="Sales.Order/customer">"#, with: #"<Annotations Target="Sales.Order/other">"#)
        )
        #expect(bare.valueListMappings(for: "customer", ofType: "com.example.sales.Order").isEmpty)
        let merged = try EDMXParser.merge(annotations: Array(Self.help.utf8), into: bare)
        #expect(
            merged.valueListMappings(for: "customer", ofType: "com.example.sales.Order").map(\.collectionPath) == [
                "Customers", "CustomersByCountry",
            ])
    }

    @Test func several_blocks_aimed_at_one_property_add_up_and_a_base_types_mapping_is_found() throws {
        // Given the help document's block, and a second block aimed at the same property with a mapping of its own
        let second = """
                <Annotations Target="Sales.Order/customer">
                  <Annotation Term="VL.ValueListMapping" Qualifier="ByName">
                    <Record>
                      <PropertyValue Property="CollectionPath" String="Customers"/>
                      <PropertyValue Property="Parameters"><Collection>
                        <Record Type="VL.ValueListParameterOut">
                          <PropertyValue Property="LocalDataProperty" PropertyPath="customer"/>
                          <PropertyValue Property="ValueListProperty" String="name"/>
                        </Record>
                      </Collection></PropertyValue>
                    </Record>
                  </Annotation>
                </Annotations>
              </Schema>
            """
        let model = try EDMXParser.parse(Self.help.replacingOccurrences(of: "  </Schema>", with: second))
        let mappings = model.valueListMappings(for: "customer", ofType: "com.example.sales.Order")
        #expect(mappings.map(\.collectionPath) == ["Customers", "CustomersByCountry", "Customers"])
        #expect(mappings.last?.outputs.map(\.from) == ["name"])
        // A derived type's property, aimed at where its base type declares it
        #expect(
            model.valueListMappings(
                for: "customer", ofTypes: ["com.example.sales.RushOrder", "com.example.sales.Order"]
            )
            .count == 3)
        #expect(model.valueListMappings(for: "customer", ofTypes: ["com.example.sales.RushOrder"]).isEmpty)
        // And the main service names a type's lineage, nearest first
        let main = try EDMXParser.parse(
            Self.main.replacingOccurrences(
                of: "<EntityContainer",
                with: #"<EntityType Name="RushOrder" BaseType="SAP__self.Order"/><EntityContainer"#))
        let rush = try #require(main.entityTypes["com.example.sales.RushOrder"])
        #expect(main.qualifiedNames(of: rush) == ["com.example.sales.RushOrder", "com.example.sales.Order"])
    }
}
