// metadata-bench: how long a large CSDL v4 `$metadata` takes to parse and index, and the memory it needs.
//
// Usage: metadata-bench [TYPES] [ROUNDS]   (default 2000 types, best of 5)
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
let result: [String: Any] = [
    "types": types, "bytes": bytes.count, "rounds": rounds, "parse_ms": best * 1000,
    "peak_rss_growth_mib": Double(peakAfter - peakBefore) / 1024, "rss_after_mib": Double(status("VmRSS")) / 1024,
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
