extension ServiceSchema {
    /// The `$metadata` document: EDMX 1.0 with one CSDL v2 schema (`DataServiceVersion="2.0"`).
    ///
    /// Each relation becomes an `Association` (principal end `1`, dependent end `*`), an `AssociationSet`,
    /// and a navigation property on each side. There is no `ReferentialConstraint`: the foreign-key
    /// columns are not exposed as properties, so a constraint could not name them.
    public var edmx: String {
        var xml = """
            <?xml version="1.0" encoding="utf-8" standalone="yes"?>
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
            \(references(declaringNamespace: true))<edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" \
            m:DataServiceVersion="2.0">
            <Schema Namespace="\(namespace)" xmlns="http://schemas.microsoft.com/ado/2008/09/edm" \
            xmlns:sap="http://www.sap.com/Protocols/SAPData">

            """
        for set in entitySets {
            xml += "<EntityType Name=\"\(set.name)\"><Key><PropertyRef Name=\"\(set.key)\"/></Key>\n"
            for property in set.properties {
                xml += "<Property Name=\"\(property.name)\" Type=\"\(property.type.edm.rawValue)\" Nullable=\"false\""
                if let maxLength = property.maxLength { xml += " MaxLength=\"\(maxLength)\"" }
                if property.type == .decimalCents { xml += " Precision=\"19\" Scale=\"2\"" }
                if property.name == set.concurrencyProperty { xml += " ConcurrencyMode=\"Fixed\"" }
                xml += "/>\n"
            }
            for navigation in navigations(from: set.name) {
                let (from, to) =
                    navigation.isCollection
                    ? (navigation.relation.principal, navigation.relation.dependent)
                    : (navigation.relation.dependent, navigation.relation.principal)
                xml +=
                    "<NavigationProperty Name=\"\(navigation.name)\" Relationship=\"\(namespace).\(navigation.relation.name)\""
                xml += " FromRole=\"\(from)\" ToRole=\"\(to)\"/>\n"
            }
            xml += "</EntityType>\n"
        }
        for relation in relations {
            xml += """
                <Association Name="\(relation.name)">
                <End Role="\(relation.principal)" Type="\(namespace).\(relation.principal)" Multiplicity="1"/>
                <End Role="\(relation.dependent)" Type="\(namespace).\(relation.dependent)" Multiplicity="*"/>
                </Association>

                """
        }
        xml += "<EntityContainer Name=\"\(containerName)\" m:IsDefaultEntityContainer=\"true\">\n"
        for set in entitySets {
            xml +=
                "<EntitySet Name=\"\(set.name)\" EntityType=\"\(namespace).\(set.name)\" sap:change-tracking=\"true\""
                + " sap:searchable=\"\(!set.searchable.isEmpty)\"/>\n"
        }
        for relation in relations {
            xml += """
                <AssociationSet Name="\(relation.name)" Association="\(namespace).\(relation.name)">\
                <End Role="\(relation.principal)" EntitySet="\(relation.principal)"/>\
                <End Role="\(relation.dependent)" EntitySet="\(relation.dependent)"/></AssociationSet>

                """
        }
        for function in functions {
            xml += """
                <FunctionImport Name="\(function.name)" EntitySet="\(function.entitySet)" \
                ReturnType="Collection(\(namespace).\(function.entitySet))" m:HttpMethod="GET" \
                sap:label="\(function.label)"><Parameter Name="\(function.parameter)" Type="Edm.Int32" Mode="In" \
                Nullable="false" sap:label="\(function.parameterLabel)"/></FunctionImport>

                """
        }
        if offersMaintenanceCost { xml += MaintenanceCostFunction.version2Declaration(namespace: namespace) }
        if offersRecordService { xml += RecordServiceAction.version2Declaration(namespace: namespace) }
        xml += "</EntityContainer>\n"
        // Its screens, in the vocabularies (CSDL v4 `<Annotations>` in the v2 schema, as SAP Gateway writes them).
        xml += annotationBlocks(xmlns: true) + version2OperationAnnotations(xmlns: true)
        xml += "</Schema>\n</edmx:DataServices>\n</edmx:Edmx>\n"
        return xml
    }
}

extension ServiceSchema {
    /// The same model as CSDL v4 (EDMX 4.0), for the service's v4 root: navigations by `Type` and `Partner`,
    /// sets joined by `NavigationPropertyBinding`; `Edm.DateTime` (gone in v4) published as `Edm.DateTimeOffset`; the
    /// concurrency stamp `Core.Computed` (v4 has no `ConcurrencyMode`).
    public var edmxVersion4: String {
        var xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            \(references())<edmx:DataServices>
            <Schema Namespace="\(namespace)" xmlns="http://docs.oasis-open.org/odata/ns/edm">

            """
        for set in entitySets {
            xml += "<EntityType Name=\"\(set.name)\"><Key><PropertyRef Name=\"\(set.key)\"/></Key>\n"
            for property in set.properties {
                let type = property.type == .dateTime ? "Edm.DateTimeOffset" : property.type.edm.rawValue
                xml += "<Property Name=\"\(property.name)\" Type=\"\(type)\" Nullable=\"false\""
                if let maxLength = property.maxLength { xml += " MaxLength=\"\(maxLength)\"" }
                if property.type == .decimalCents { xml += " Precision=\"19\" Scale=\"2\"" }
                // v4 has no ConcurrencyMode: the stamp the service sets (and the ETag is made of) is Core.Computed.
                xml +=
                    property.name == set.concurrencyProperty
                    ? "><Annotation Term=\"Core.Computed\" Bool=\"true\"/></Property>\n" : "/>\n"
            }
            for navigation in navigations(from: set.name) {
                let partner =
                    navigation.isCollection
                    ? navigation.relation.dependentNavigation : navigation.relation.principalNavigation
                let type =
                    navigation.isCollection
                    ? "Collection(\(namespace).\(navigation.target))" : "\(namespace).\(navigation.target)"
                xml += "<NavigationProperty Name=\"\(navigation.name)\" Type=\"\(type)\" Partner=\"\(partner)\""
                if navigation.isCollection, navigation.relation.isContainment { xml += " ContainsTarget=\"true\"" }
                xml += navigation.isCollection ? "/>\n" : " Nullable=\"false\"/>\n"
            }
            xml += "</EntityType>\n"
        }
        for function in functions {
            xml += """
                <Function Name="\(function.name)"><Parameter Name="\(function.parameter)" Type="Edm.Int32" \
                Nullable="false"><Annotation Term="Common.Label" String="\(function.parameterLabel)"/></Parameter>\
                <ReturnType Type="Collection(\(namespace).\(function.entitySet))"/>\
                <Annotation Term="Common.Label" String="\(function.label)"/></Function>

                """
        }
        if offersMaintenanceCost { xml += MaintenanceCostFunction.version4Declaration(namespace: namespace) }
        if offersRecordService { xml += RecordServiceAction.version4Declaration(namespace: namespace) }
        if let workOrders { xml += workOrders.typeDeclarations }
        xml += "<EntityContainer Name=\"\(containerName)\">\n"
        for function in functions {
            xml += "<FunctionImport Name=\"\(function.name)\" Function=\"\(namespace).\(function.name)\" "
            xml += "EntitySet=\"\(function.entitySet)\"/>\n"
        }
        // (contained entities have no set: they are reached through their principal's)
        for set in entitySets where containment(of: set.name) == nil {
            xml += "<EntitySet Name=\"\(set.name)\" EntityType=\"\(namespace).\(set.name)\">"
            for navigation in navigations(from: set.name) {
                guard navigation.isCollection, navigation.relation.isContainment else {
                    xml += "<NavigationPropertyBinding Path=\"\(navigation.name)\" Target=\"\(navigation.target)\"/>"
                    continue
                }
                // A contained entity's own navigations are bound through the path to it: `Options/Car`.
                for inner in navigations(from: navigation.target) where containment(of: inner.target) == nil {
                    xml += "<NavigationPropertyBinding Path=\"\(navigation.name)/\(inner.name)\" "
                    xml += "Target=\"\(inner.target)\"/>"
                }
            }
            xml += "<Annotation Term=\"Org.OData.Capabilities.V1.ChangeTracking\"><Record>"
            xml += "<PropertyValue Property=\"Supported\" Bool=\"true\"/></Record></Annotation>"
            xml += "<Annotation Term=\"Org.OData.Capabilities.V1.SearchRestrictions\"><Record>"
            xml += "<PropertyValue Property=\"Searchable\" Bool=\"\(!set.searchable.isEmpty)\"/></Record></Annotation>"
            xml += "</EntitySet>\n"
        }
        if let workOrders { xml += workOrders.setDeclaration }
        xml += "</EntityContainer>\n" + annotationBlocks(xmlns: false) + (workOrders?.annotations ?? "")
        xml += "</Schema>\n</edmx:DataServices>\n</edmx:Edmx>\n"
        return xml
    }
}
