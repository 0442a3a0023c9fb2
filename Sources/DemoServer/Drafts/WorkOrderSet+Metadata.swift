import ODataCore

extension WorkOrderSet {
    /// The entity type and its three draft actions, for the v4 schema (before its container).
    var typeDeclarations: String {
        let type = "\(namespace).\(Self.name)"
        var xml =
            "<EntityType Name=\"\(Self.name)\"><Key><PropertyRef Name=\"ID\"/><PropertyRef Name=\"IsActiveEntity\"/>"
        xml += "</Key>\n<Property Name=\"ID\" Type=\"Edm.Int32\" Nullable=\"false\">"
        xml += "<Annotation Term=\"Core.Computed\" Bool=\"true\"/></Property>\n"
        xml += "<Property Name=\"IsActiveEntity\" Type=\"Edm.Boolean\" Nullable=\"false\" DefaultValue=\"true\"/>\n"
        xml += "<Property Name=\"HasActiveEntity\" Type=\"Edm.Boolean\" Nullable=\"false\" DefaultValue=\"false\"/>\n"
        xml += "<Property Name=\"HasDraftEntity\" Type=\"Edm.Boolean\" Nullable=\"false\" DefaultValue=\"false\"/>\n"
        xml += "<Property Name=\"title\" Type=\"Edm.String\" MaxLength=\"\(Self.longestTitle)\"/>\n"
        xml += "<Property Name=\"carID\" Type=\"Edm.Int32\"/>\n"
        xml += "<Property Name=\"modifiedAt\" Type=\"Edm.DateTimeOffset\" Nullable=\"false\">"
        xml += "<Annotation Term=\"Core.Computed\" Bool=\"true\"/></Property>\n"
        xml += "<NavigationProperty Name=\"\(Self.administration)\" Type=\"\(namespace).\(Self.administration)\"/>\n"
        xml +=
            "</EntityType>\n<EntityType Name=\"\(Self.administration)\"><Key><PropertyRef Name=\"DraftUUID\"/></Key>\n"
        xml += "<Property Name=\"DraftUUID\" Type=\"Edm.Guid\" Nullable=\"false\"/>\n"
        for (name, type) in [
            ("CreationDateTime", "Edm.DateTimeOffset"), ("CreatedByUser", "Edm.String"),
            ("DraftIsCreatedByMe", "Edm.Boolean"), ("LastChangeDateTime", "Edm.DateTimeOffset"),
            ("LastChangedByUser", "Edm.String"), ("InProcessByUser", "Edm.String"),
            ("DraftIsProcessedByMe", "Edm.Boolean"),
        ] {
            xml += "<Property Name=\"\(name)\" Type=\"\(type)\"\(type == "Edm.String" ? " MaxLength=\"256\"" : "")/>\n"
        }
        xml += "</EntityType>\n"
        let parameters = [
            "draftEdit": "<Parameter Name=\"PreserveChanges\" Type=\"Edm.Boolean\"/>",
            "draftPrepare": "<Parameter Name=\"SideEffectsQualifier\" Type=\"Edm.String\"/>", "draftActivate": "",
        ]
        for action in Self.actions {
            xml += "<Action Name=\"\(action)\" IsBound=\"true\" EntitySetPath=\"in\">"
            xml += "<Parameter Name=\"in\" Type=\"\(type)\" Nullable=\"false\"/>\(parameters[action] ?? "")"
            xml += "<ReturnType Type=\"\(type)\"/></Action>\n"
        }
        return xml
    }

    /// The set in the container, with the `Common.DraftRoot` that names its actions.
    var setDeclaration: String {
        var xml = "<EntitySet Name=\"\(Self.name)\" EntityType=\"\(namespace).\(Self.name)\">"
        xml += "<NavigationPropertyBinding Path=\"\(Self.administration)\" Target=\"\(Self.administration)\"/>"
        xml += "<Annotation Term=\"Common.DraftRoot\"><Record Type=\"Common.DraftRootType\">"
        for (property, action) in [
            ("ActivationAction", "draftActivate"), ("EditAction", "draftEdit"), ("PreparationAction", "draftPrepare"),
        ] {
            xml += "<PropertyValue Property=\"\(property)\" String=\"\(namespace).\(action)\"/>"
        }
        xml += "</Record></Annotation>"
        xml += "<Annotation Term=\"Org.OData.Capabilities.V1.SearchRestrictions\"><Record>"
        xml += "<PropertyValue Property=\"Searchable\" Bool=\"false\"/></Record></Annotation>"
        xml += "</EntitySet>\n"
        xml += "<EntitySet Name=\"\(Self.administration)\" EntityType=\"\(namespace).\(Self.administration)\">"
        xml += "<Annotation Term=\"Org.OData.Capabilities.V1.InsertRestrictions\"><Record>"
        xml += "<PropertyValue Property=\"Insertable\" Bool=\"false\"/></Record></Annotation>"
        xml += "<Annotation Term=\"Org.OData.Capabilities.V1.UpdateRestrictions\"><Record>"
        xml += "<PropertyValue Property=\"Updatable\" Bool=\"false\"/></Record></Annotation>"
        xml += "<Annotation Term=\"Org.OData.Capabilities.V1.DeleteRestrictions\"><Record>"
        xml += "<PropertyValue Property=\"Deletable\" Bool=\"false\"/></Record></Annotation>"
        return xml + "</EntitySet>\n"
    }

    /// How its screens look: names, columns, labels, and the cars a car number is picked from.
    var annotations: String {
        let type = "\(namespace).\(Self.name)"
        var xml =
            "<Annotations Target=\"\(type)\">\n<Annotation Term=\"UI.HeaderInfo\"><Record Type=\"UI.HeaderInfoType\">"
        xml += "<PropertyValue Property=\"TypeName\" String=\"Work order\"/>"
        xml += "<PropertyValue Property=\"TypeNamePlural\" String=\"Work orders\"/>"
        xml += "<PropertyValue Property=\"Title\"><Record Type=\"UI.DataField\"><PropertyValue Property=\"Value\" "
        xml += "Path=\"title\"/></Record></PropertyValue></Record></Annotation>\n"
        xml += "<Annotation Term=\"UI.LineItem\"><Collection>"
        for (path, label) in [
            ("title", "Work"), ("carID", "Car"), ("HasDraftEntity", "Draft"), ("modifiedAt", "Changed"),
        ] {
            xml += "<Record Type=\"UI.DataField\"><PropertyValue Property=\"Value\" Path=\"\(path)\"/>"
            xml += "<PropertyValue Property=\"Label\" String=\"\(label)\"/></Record>"
        }
        xml += "</Collection></Annotation>\n"
        // What the service changes in a draft when a field changes (SAP's side effects): the draft's last change.
        xml += "<Annotation Term=\"Common.SideEffects\" Qualifier=\"Changed\"><Record Type=\"Common.SideEffectsType\">"
        xml += "<PropertyValue Property=\"SourceProperties\"><Collection><PropertyPath>title</PropertyPath>"
        xml += "<PropertyPath>carID</PropertyPath></Collection></PropertyValue>"
        xml += "<PropertyValue Property=\"TargetProperties\"><Collection><String>modifiedAt</String></Collection>"
        xml += "</PropertyValue></Record></Annotation>\n</Annotations>\n"
        let administration = "\(namespace).\(Self.administration)"
        xml += "<Annotations Target=\"\(administration)\">\n<Annotation Term=\"UI.HeaderInfo\">"
        xml += "<Record Type=\"UI.HeaderInfoType\"><PropertyValue Property=\"TypeName\" String=\"Draft\"/>"
        xml += "<PropertyValue Property=\"TypeNamePlural\" String=\"Drafts\"/>"
        xml += "<PropertyValue Property=\"Title\"><Record Type=\"UI.DataField\"><PropertyValue Property=\"Value\" "
        xml += "Path=\"InProcessByUser\"/></Record></PropertyValue></Record></Annotation>\n</Annotations>\n"
        for (property, label) in [
            ("DraftUUID", "Draft"), ("CreationDateTime", "Made"), ("CreatedByUser", "Made by"),
            ("DraftIsCreatedByMe", "Made by me"), ("LastChangeDateTime", "Last changed"),
            ("LastChangedByUser", "Last changed by"), ("InProcessByUser", "Being edited by"),
            ("DraftIsProcessedByMe", "Being edited by me"),
        ] {
            xml += "<Annotations Target=\"\(administration)/\(property)\">"
            xml += "<Annotation Term=\"Common.Label\" String=\"\(label)\"/></Annotations>\n"
        }
        xml += "<Annotations Target=\"\(type)/\(Self.administration)\">"
        xml += "<Annotation Term=\"Common.Label\" String=\"Draft\"/></Annotations>\n"
        for (property, label) in [
            ("ID", "Work order number"), ("title", "Work"), ("carID", "Car number"), ("modifiedAt", "Changed"),
        ] {
            xml += "<Annotations Target=\"\(type)/\(property)\"><Annotation Term=\"Common.Label\" String=\"\(label)\"/>"
            if property == "carID" {
                xml += "<Annotation Term=\"Common.ValueList\"><Record Type=\"Common.ValueListType\">"
                xml += "<PropertyValue Property=\"Label\" String=\"Cars\"/>"
                xml += "<PropertyValue Property=\"CollectionPath\" String=\"Car\"/>"
                xml += "<PropertyValue Property=\"Parameters\"><Collection>"
                xml += "<Record Type=\"Common.ValueListParameterInOut\">"
                xml += "<PropertyValue Property=\"LocalDataProperty\" PropertyPath=\"carID\"/>"
                xml += "<PropertyValue Property=\"ValueListProperty\" String=\"carID\"/></Record>"
                for shown in ["make", "model"] {
                    xml += "<Record Type=\"Common.ValueListParameterDisplayOnly\">"
                    xml += "<PropertyValue Property=\"ValueListProperty\" String=\"\(shown)\"/></Record>"
                }
                xml += "</Collection></PropertyValue></Record></Annotation>"
            }
            xml += "</Annotations>\n"
        }
        return xml
    }

    // MARK: Payloads

    /// One work order as v4 JSON, inside a collection or (`context` given) on its own; `select` names the
    /// properties wanted (its keys always go), nil all of them.
    static func write(
        _ order: Order, into json: inout JSONWriter, context: String?, select: Set<String>?,
        administration: Order?? = nil
    ) {
        json.beginObject()
        if let context {
            json.key("@odata.context")
            json.string(context)
        }
        json.key("@odata.etag")
        json.string(order.etag)
        for property in properties {
            if let select, !select.contains(property), property != "ID", property != DraftActions.activeKey {
                continue
            }
            json.key(property)
            switch order.value(of: property) {
            case .int(let number): json.number(number)
            case .bool(let flag): json.raw(flag ? "true" : "false")
            case .string(let text): json.string(text)
            case .dateTimeOffset(let instant): json.string(instant.iso8601(withOffset: false) + "Z")
            default: json.null()
            }
        }
        if let administration {
            json.key(Self.administration)
            if let draft = administration {
                writeAdministration(of: draft, into: &json, context: nil)
            } else {
                json.null()
            }
        }
        json.endObject()
    }

    /// Who edits `draft` and since when, as CAP's `DraftAdministrativeData` says it.
    static func writeAdministration(of draft: Order, into json: inout JSONWriter, context: String?) {
        func instant(_ milliseconds: Int64?) -> String? {
            milliseconds.map { ODataInstant(millisecondsSince1970: $0).iso8601(withOffset: false) + "Z" }
        }
        let mine = draft.heldBy == user
        json.beginObject()
        if let context {
            json.key("@odata.context")
            json.string(context)
        }
        for (name, value) in [
            ("DraftUUID", draft.draftUUID), ("CreationDateTime", instant(draft.draftSince)),
            ("CreatedByUser", draft.heldBy), ("LastChangeDateTime", instant(draft.modifiedAt)),
            ("LastChangedByUser", draft.heldBy), ("InProcessByUser", draft.heldBy),
        ] {
            json.key(name)
            if let value { json.string(value) } else { json.null() }
        }
        for name in ["DraftIsCreatedByMe", "DraftIsProcessedByMe"] {
            json.key(name)
            json.raw(mine ? "true" : "false")
        }
        json.endObject()
    }

    /// One work order as an answer's body.
    static func document(_ order: Order, serviceRoot: String) -> [UInt8] {
        var json = JSONWriter(capacity: 512)
        write(order, into: &json, context: serviceRoot + "$metadata#\(name)/$entity", select: nil)
        return json.bytes
    }
}
