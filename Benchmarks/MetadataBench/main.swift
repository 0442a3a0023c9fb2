// metadata-bench: how long a large CSDL v4 `$metadata` takes to parse and index, and the memory it needs.
//
// Usage: metadata-bench [TYPES] [ROUNDS] [ANNOTATIONS_FILE]   (default 2000 types, best of 5; the file gets the
// generated annotation document, for a baseline to read it)
// Generates an EDMX 4.0 document the shape of a big ERP service: TYPES entity types of 12 properties (strings
// with MaxLength, decimals, dates, Common.Label on each), 3 navigation properties each (two to-one, one
// collection, Partners declared), one entity set per type with its NavigationPropertyBindings, and external
// `<Annotations>` blocks (labels, Capabilities restrictions). Times EDMXParser.parse (the XML read, the model
// built, the parse tree dropped) and, after it, one navigation resolved per set (the index a browser uses).
// Peak RSS is the process's VmHWM after the runs minus before the first one (the document itself excluded).
// Prints one JSON object.
import Foundation
import ODataCore

let arguments = CommandLine.arguments
let types = arguments.count > 1 ? Int(arguments[1]) ?? 2000 : 2000
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5

func document(types: Int) -> String {
    var xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
        <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/></edmx:Reference>
        <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml">
        <edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Capabilities"/></edmx:Reference>
        <edmx:DataServices><Schema Namespace="erp.api.v0001" Alias="SAP__self" xmlns="http://docs.oasis-open.org/odata/ns/edm">

        """
    for index in 0..<types {
        let next = (index + 1) % types
        let other = (index * 7 + 3) % types
        xml += "<EntityType Name=\"T\(index)Type\"><Key><PropertyRef Name=\"Id\"/><PropertyRef Name=\"Item\"/></Key>"
        xml += "<Property Name=\"Id\" Type=\"Edm.String\" MaxLength=\"10\" Nullable=\"false\">"
        xml += "<Annotation Term=\"Common.Label\" String=\"Document\"/></Property>"
        xml += "<Property Name=\"Item\" Type=\"Edm.String\" MaxLength=\"6\" Nullable=\"false\"/>"
        for field in 0..<5 {
            xml += "<Property Name=\"Text\(field)\" Type=\"Edm.String\" MaxLength=\"40\">"
            xml += "<Annotation Term=\"Common.Label\" String=\"Text \(field) of \(index)\"/></Property>"
        }
        xml += "<Property Name=\"Amount\" Type=\"Edm.Decimal\" Precision=\"16\" Scale=\"3\"/>"
        xml += "<Property Name=\"Quantity\" Type=\"Edm.Decimal\" Precision=\"13\" Scale=\"3\"/>"
        xml += "<Property Name=\"Created\" Type=\"Edm.Date\"/><Property Name=\"Changed\" Type=\"Edm.DateTimeOffset\"/>"
        xml += "<Property Name=\"Counter\" Type=\"Edm.Int64\"/>"
        xml += "<NavigationProperty Name=\"to_Next\" Type=\"SAP__self.T\(next)Type\" Partner=\"to_Previous\"/>"
        xml += "<NavigationProperty Name=\"to_Other\" Type=\"SAP__self.T\(other)Type\"/>"
        xml += "<NavigationProperty Name=\"to_Items\" Type=\"Collection(SAP__self.T\(next)Type)\"/>"
        xml += "<NavigationProperty Name=\"to_Previous\" Type=\"SAP__self.T\((index + types - 1) % types)Type\""
        xml += " Partner=\"to_Next\"/></EntityType>\n"
    }
    xml += "<EntityContainer Name=\"Container\">\n"
    for index in 0..<types {
        let next = (index + 1) % types
        xml += "<EntitySet Name=\"T\(index)\" EntityType=\"SAP__self.T\(index)Type\">"
        xml += "<NavigationPropertyBinding Path=\"to_Next\" Target=\"T\(next)\"/>"
        xml += "<NavigationPropertyBinding Path=\"to_Other\" Target=\"T\((index * 7 + 3) % types)\"/>"
        xml += "<NavigationPropertyBinding Path=\"to_Items\" Target=\"T\(next)\"/>"
        xml += "<NavigationPropertyBinding Path=\"to_Previous\" Target=\"T\((index + types - 1) % types)\"/>"
        xml += "</EntitySet>\n"
    }
    xml += "</EntityContainer>\n"
    for index in 0..<types {
        xml += "<Annotations Target=\"SAP__self.Container/T\(index)\">"
        xml += "<Annotation Term=\"Capabilities.DeleteRestrictions\"><Record>"
        xml +=
            "<PropertyValue Property=\"Deletable\" Bool=\"\(index % 3 == 0)\"/></Record></Annotation></Annotations>\n"
        xml += "<Annotations Target=\"SAP__self.T\(index)Type/Item\">"
        xml += "<Annotation Term=\"Common.Label\" String=\"Item of \(index)\"/></Annotations>\n"
    }
    xml += "</Schema></edmx:DataServices></edmx:Edmx>\n"
    return xml
}

/// A line of /proc/self/status in KiB (`VmHWM`, `VmRSS`).
func status(_ name: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// An annotation document for those types with every term the browser reads (issue 33): per type UI.HeaderInfo,
/// a UI.LineItem of 8 properties with labels and importance, three UI.FieldGroups, UI.Facets to them and to a
/// navigation's line item, UI.Identification and UI.PresentationVariant; for four properties Common.Label, and
/// Common.Text with UI.TextArrangement, Measures.ISOCurrency and Measures.Unit. About 11 MB at 2,000 types.
func annotationDocument(types: Int) -> String {
    let names = [
        "Id", "Item", "Text0", "Text1", "Text2", "Text3", "Text4", "Amount", "Quantity", "Created", "Changed",
        "Counter",
    ]
    var xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/UI.xml">
        <edmx:Include Namespace="com.sap.vocabularies.UI.v1" Alias="UI"/></edmx:Reference>
        <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
        <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/></edmx:Reference>
        <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Measures.V1.xml">
        <edmx:Include Namespace="Org.OData.Measures.V1" Alias="Measures"/></edmx:Reference>
        <edmx:Reference Uri="/erp/$metadata"><edmx:Include Namespace="erp.api.v0001" Alias="ERP"/></edmx:Reference>
        <edmx:DataServices><Schema Namespace="erp.annotations" xmlns="http://docs.oasis-open.org/odata/ns/edm">

        """
    func field(_ name: String, label: String? = nil, important: Bool = false) -> String {
        "<Record><PropertyValue Property=\"Value\" Path=\"\(name)\"/>"
            + (label.map { "<PropertyValue Property=\"Label\" String=\"\($0)\"/>" } ?? "")
            + (important ? "<Annotation Term=\"UI.Importance\" EnumMember=\"UI.ImportanceType/High\"/>" : "")
            + "</Record>"
    }
    for index in 0..<types {
        xml += "<Annotations Target=\"ERP.T\(index)Type\">"
        xml += "<Annotation Term=\"UI.HeaderInfo\"><Record Type=\"UI.HeaderInfoType\">"
        xml += "<PropertyValue Property=\"TypeName\" String=\"Document \(index)\"/>"
        xml += "<PropertyValue Property=\"TypeNamePlural\" String=\"Documents \(index)\"/>"
        xml += "<PropertyValue Property=\"Title\"><Record Type=\"UI.DataField\">"
        xml += "<PropertyValue Property=\"Value\" Path=\"Text0\"/></Record></PropertyValue></Record></Annotation>"
        xml += "<Annotation Term=\"UI.LineItem\"><Collection>"
        for (position, name) in names.prefix(8).enumerated() {
            xml += field(name, label: position < 2 ? "\(name) \(index)" : nil, important: position == 0)
        }
        xml += "</Collection></Annotation>"
        for (group, members) in [("General", names.prefix(4)), ("Amounts", names[7...8]), ("Dates", names[9...10])] {
            xml += "<Annotation Term=\"UI.FieldGroup\" Qualifier=\"\(group)\"><Record Type=\"UI.FieldGroupType\">"
            xml +=
                "<PropertyValue Property=\"Label\" String=\"\(group)\"/><PropertyValue Property=\"Data\"><Collection>"
            for name in members { xml += field(name) }
            xml += "</Collection></PropertyValue></Record></Annotation>"
        }
        xml += "<Annotation Term=\"UI.Facets\"><Collection>"
        for target in [
            "@UI.FieldGroup#General", "@UI.FieldGroup#Amounts", "@UI.FieldGroup#Dates", "to_Items/@UI.LineItem",
        ] {
            xml += "<Record Type=\"UI.ReferenceFacet\"><PropertyValue Property=\"Label\" String=\"\(target)\"/>"
            xml += "<PropertyValue Property=\"Target\" AnnotationPath=\"\(target)\"/></Record>"
        }
        xml += "</Collection></Annotation>"
        xml +=
            "<Annotation Term=\"UI.Identification\"><Collection>\(field("Id"))\(field("Item"))</Collection></Annotation>"
        xml += "<Annotation Term=\"UI.PresentationVariant\"><Record><PropertyValue Property=\"SortOrder\"><Collection>"
        xml += "<Record><PropertyValue Property=\"Property\" PropertyPath=\"Created\"/>"
        xml += "<PropertyValue Property=\"Descending\" Bool=\"true\"/></Record></Collection></PropertyValue></Record>"
        xml += "</Annotation></Annotations>\n"
        for name in ["Id", "Text0", "Amount", "Quantity"] {
            xml += "<Annotations Target=\"ERP.T\(index)Type/\(name)\">"
            xml += "<Annotation Term=\"Common.Label\" String=\"\(name) label \(index)\"/>"
            switch name {
            case "Id":
                xml += "<Annotation Term=\"Common.Text\" Path=\"Text1\">"
                xml += "<Annotation Term=\"UI.TextArrangement\" EnumMember=\"UI.TextArrangementType/TextFirst\"/>"
                xml += "</Annotation>"
            case "Amount": xml += "<Annotation Term=\"Measures.ISOCurrency\" Path=\"Text2\"/>"
            case "Quantity": xml += "<Annotation Term=\"Measures.Unit\" Path=\"Text3\"/>"
            default: break
            }
            xml += "</Annotations>\n"
        }
    }
    xml += "</Schema></edmx:DataServices></edmx:Edmx>\n"
    return xml
}

let bytes = Array(document(types: types).utf8)
let peakBefore = status("VmHWM")
var best = Double.infinity
var resolved = 0
var parsedTypes = 0
for _ in 0..<rounds {
    let start = ContinuousClock.now
    let model = try EDMXParser.parse(bytes)
    resolved = 0
    for set in model.entitySets where model.resolveNavigation("to_Items", fromSet: set.name) != nil { resolved += 1 }
    let elapsed = ContinuousClock.now - start
    best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    parsedTypes = model.entityTypes.count
}
let peakAfter = status("VmHWM")
guard parsedTypes == types, resolved == types else {
    FileHandle.standardError.write(Data("parsed \(parsedTypes) types, resolved \(resolved) bindings\n".utf8))
    exit(1)
}

// The annotation document, merged into the parsed model (as a v2 service's is, after its $metadata).
let model = try EDMXParser.parse(bytes)
let annotations = Array(annotationDocument(types: types).utf8)
if arguments.count > 3 { _ = FileManager.default.createFile(atPath: arguments[3], contents: Data(annotations)) }
let annotationPeakBefore = status("VmHWM")
var bestMerge = Double.infinity
var annotatedTypes = 0
for _ in 0..<rounds {
    let start = ContinuousClock.now
    let merged = try EDMXParser.merge(annotations: annotations, into: model)
    let elapsed = ContinuousClock.now - start
    bestMerge = min(bestMerge, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    annotatedTypes = merged.entityTypes.values.filter { $0.ui.lineItem?.count == 8 && $0.ui.facets?.count == 4 }.count
}
let annotationPeakAfter = status("VmHWM")
guard annotatedTypes == types else {
    FileHandle.standardError.write(Data("annotated \(annotatedTypes) of \(types) types\n".utf8))
    exit(1)
}
let result: [String: Any] = [
    "types": types, "bytes": bytes.count, "rounds": rounds, "parse_ms": best * 1000,
    "peak_rss_growth_mib": Double(peakAfter - peakBefore) / 1024, "rss_after_mib": Double(status("VmRSS")) / 1024,
    "annotations_bytes": annotations.count, "annotations_merge_ms": bestMerge * 1000,
    "annotations_peak_rss_growth_mib": Double(annotationPeakAfter - annotationPeakBefore) / 1024,
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
