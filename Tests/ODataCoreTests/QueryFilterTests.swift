import Foundation
import Testing

@testable import ODataCore

/// Filters as values (issue 33): each dialect writes them out, and rows cached answer them as the service would.
@Suite struct QueryFilterTests {
    @Test func each_dialect_writes_comparisons_with_typed_literals_and_contains_its_own_way() {
        let amount = QueryFilter.compare("netAmount", .gt, .decimal("1000"), type: .decimal)
        #expect(amount.text(dialect: .v2) == "netAmount gt 1000M")
        #expect(amount.text(dialect: .v4) == "netAmount gt 1000")
        let since = QueryFilter.compare(
            "since", .ge, .dateTime(ODataInstant(millisecondsSince1970: 1_600_000_000_000)), type: .dateTime)
        #expect(since.text(dialect: .v2) == "since ge datetime'2020-09-13T12:26:40'")
        #expect(since.text(dialect: .v4) == "since ge 2020-09-13T12:26:40Z")
        let name = QueryFilter.contains("name", "O'Ne")
        #expect(name.text(dialect: .v2) == "substringof('o''ne', tolower(name))")
        #expect(name.text(dialect: .v4) == "contains(tolower(name), 'o''ne')")
        let nested = QueryFilter.all([
            .compare("status", .eq, .string("P")), .any([.contains("a", "x"), .contains("b", "x")]),
        ])
        #expect(
            nested.text(dialect: .v4) == "status eq 'P' and (contains(tolower(a), 'x') or contains(tolower(b), 'x'))")
        #expect(nested.properties == ["status", "a", "b"])
        #expect(QueryFilter.compare("x", .eq, .null).text(dialect: .v2) == "x eq null")
        // Added to a list's own filter, both hold
        #expect(amount.and("status eq 'P'", dialect: .v4) == "(status eq 'P') and (netAmount gt 1000)")
        #expect(amount.and(nil, dialect: .v4) == "netAmount gt 1000")
        // A value with no literal writes nothing rather than a wrong filter
        #expect(QueryFilter.compare("x", .eq, .complex([])).text(dialect: .v4) == nil)
    }

    @Test func rows_answer_as_the_service_would() {
        let row: [String: ODataValue] = [
            "amount": .decimal("531.5"), "count": .int(3), "status": .string("In Process"),
        ]
        func holds(_ expression: QueryFilter) -> Bool { expression.matches { row[$0] } }
        #expect(holds(.compare("amount", .gt, .int(500))))
        #expect(!holds(.compare("amount", .le, .double(531))))
        #expect(holds(.compare("count", .ge, .int(3))) && !holds(.compare("count", .ne, .int(3))))
        #expect(holds(.contains("status", "PROC")) && !holds(.contains("count", "3")))
        // A missing value is null: equal to nothing but null, unequal to anything else
        #expect(!holds(.compare("missing", .eq, .string("x"))) && holds(.compare("missing", .ne, .string("x"))))
        #expect(holds(.compare("missing", .eq, .null)) && !holds(.compare("count", .eq, .null)))
        #expect(!holds(.compare("missing", .lt, .int(1))))
        // Values of another kind do not compare
        #expect(!holds(.compare("status", .gt, .int(1))))
        #expect(holds(.all([.compare("count", .eq, .int(3)), .contains("status", "in")])))
        #expect(holds(.any([.compare("count", .eq, .int(4)), .contains("status", "in")])))
        #expect(holds(.all([])) && !holds(.any([])))
        // The same instant written with another offset is equal
        let local = ODataValue.dateTimeOffset(
            ODataInstant(millisecondsSince1970: 1_600_000_000_000, offsetMinutes: 120))
        let utc = ODataValue.dateTimeOffset(ODataInstant(millisecondsSince1970: 1_600_000_000_000, offsetMinutes: 0))
        #expect(QueryFilter.compare("at", .eq, utc).matches { _ in local })
        #expect(!QueryFilter.compare("at", .ne, utc).matches { _ in local })
    }

    @Test func selection_fields_are_read_and_a_later_source_replaces_them() throws {
        let edmx = """
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:DataServices><Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
            <Property Name="id" Type="Edm.Int32" Nullable="false"/><Property Name="status" Type="Edm.String"/>
            <Annotation Term="com.sap.vocabularies.UI.v1.SelectionFields"><Collection>
            <PropertyPath>status</PropertyPath><PropertyPath>gone</PropertyPath><PropertyPath>to/far</PropertyPath>
            <PropertyPath>id</PropertyPath></Collection></Annotation></EntityType>
            <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="T.Order"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        let model = try EDMXParser.parse(edmx)
        #expect(model.selectionFields(ofSet: "Orders") == ["status", "id"])
        #expect(model.selectionFields(ofSet: "Nowhere") == [])
        var later = UIAnnotations()
        later.selectionFields = ["id"]
        #expect(UIAnnotations().overridden(by: later).selectionFields == ["id"])
        var earlier = UIAnnotations()
        earlier.selectionFields = ["status"]
        #expect(earlier.overridden(by: UIAnnotations()).selectionFields == ["status"])
    }
}
