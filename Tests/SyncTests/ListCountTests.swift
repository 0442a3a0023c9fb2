import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// `$count` as a path segment (issue 37), through the real transport on 127.0.0.1: a list whose first page comes
/// without its length, though asked for, and goes on, has its length asked once of `…/$count` with the list's filter;
/// a set the service counts nothing of (`Capabilities.CountRestrictions`, `sap:countable`) is asked for no count at
/// all; a count that is not a number is a sentence, and the list's rows stay.
@Suite struct ListCountTests {
    static func model(countable: Bool) throws -> ServiceModel {
        let restriction =
            countable
            ? ""
            : """
            <Annotation Term="Org.OData.Capabilities.V1.CountRestrictions"><Record>
            <PropertyValue Property="Countable" Bool="false"/></Record></Annotation>
            """
        return try EDMXParser.parse(
            Array(
                """
                <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
                <Schema Namespace="M" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <EntityType Name="Person"><Key><PropertyRef Name="personID"/></Key>
                <Property Name="personID" Type="Edm.Int32" Nullable="false"/><Property Name="lastName" Type="Edm.String"/>
                </EntityType><EntityContainer Name="C">
                <EntitySet Name="Person" EntityType="M.Person">\(restriction)</EntitySet></EntityContainer>
                </Schema></edmx:DataServices></edmx:Edmx>
                """.utf8))
    }

    /// A service whose pages of people never say how many there are (20 rows, and a next link), and whose `$count`
    /// segment answers `count`.
    static func service(count: String) throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { exchange in
            if exchange.target.hasPrefix("/svc/Person/$count") {
                return .bytes(
                    ScriptedHTTPServer.response(headers: ["Content-Type: text/plain"], body: Array(count.utf8)))
            }
            let rows = (0..<20).map { #"{"personID":\#($0),"lastName":"P\#($0)"}"# }.joined(separator: ",")
            let body = #"{"value":[\#(rows)],"@odata.nextLink":"Person?$skiptoken=20"}"#
            return .bytes(ScriptedHTTPServer.response(body: Array(body.utf8)))
        }
    }

    static func engine(_ service: ScriptedHTTPServer, model: ServiceModel) throws -> SyncEngine {
        let root = service.url("/svc/")
        let transport = try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 5)
        return try SyncEngine.forTesting(root: root, transport: transport, model: model, clock: SystemClock()) {
            $0.pageSize = 20
            $0.prefetch = false
        }
    }

    static let people = ListRequest(entitySet: "Person", filter: "lastName ne 'X'")

    @Test func a_list_whose_pages_say_no_length_has_it_asked_once_of_the_count_segment() async throws {
        let service = try Self.service(count: "1234\n")
        defer { service.stop() }
        let engine = try Self.engine(service, model: try Self.model(countable: true))
        engine.screenDidShow(.list(Self.people), visible: 0..<10, screen: ScreenID(1))
        #expect(
            try await eventually(seconds: 10) { try engine.cache.listState(Self.people.key)?.totalCount == 1234 },
            "\(service.exchanges.map(\.target))")
        // Asked with the list's filter, once, after the page that asked for a count and got none
        let targets = service.exchanges.map(\.target)
        #expect(targets.first?.contains("$count=true") == true, "\(targets)")
        #expect(
            targets.filter { $0.hasPrefix("/svc/Person/$count") } == ["/svc/Person/$count?$filter=lastName%20ne%20'X'"])
        // Shown again, the list's length is known: not asked again
        engine.screenDidShow(.list(Self.people), visible: 0..<10, screen: ScreenID(2))
        await engine.waitUntilIdle()
        #expect(service.exchanges.filter { $0.target.contains("/$count") }.count == 1)
    }

    @Test func a_set_the_service_counts_nothing_of_is_asked_for_no_count() async throws {
        let service = try Self.service(count: "1234")
        defer { service.stop() }
        let engine = try Self.engine(service, model: try Self.model(countable: false))
        engine.screenDidShow(.list(Self.people), visible: 0..<10, screen: ScreenID(1))
        #expect(try await eventually(seconds: 10) { try engine.cache.listState(Self.people.key)?.fetchedCount == 20 })
        await engine.waitUntilIdle()
        let targets = service.exchanges.map(\.target)
        #expect(!targets.contains { $0.contains("count") }, "\(targets)")
        #expect(try engine.cache.listState(Self.people.key)?.totalCount == nil)
    }

    @Test func a_count_that_is_not_a_number_is_logged_and_the_list_stays_as_it_was() async throws {
        let service = try Self.service(count: "<html>login</html>")
        defer { service.stop() }
        let engine = try Self.engine(service, model: try Self.model(countable: true))
        engine.screenDidShow(.list(Self.people), visible: 0..<10, screen: ScreenID(1))
        #expect(
            try await eventually(seconds: 10) {
                try engine.cache.requestLog().contains { $0.url.contains("/$count") && $0.outcome == .failed }
            })
        let state = try #require(try engine.cache.listState(Self.people.key))
        #expect(state.totalCount == nil && state.fetchedCount == 20 && state.lastError == nil)
    }

    @Test func sap_countable_false_is_read_from_a_v2_set() throws {
        let model = try EDMXParser.parse(
            Array(
                """
                <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
                  xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
                  xmlns:sap="http://www.sap.com/Protocols/SAPData"><edmx:DataServices m:DataServiceVersion="2.0">
                <Schema Namespace="M" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
                <EntityType Name="Item"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
                <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Items" EntityType="M.Item" sap:countable="false"/>
                <EntitySet Name="Others" EntityType="M.Item"/></EntityContainer>
                </Schema></edmx:DataServices></edmx:Edmx>
                """.utf8))
        #expect(model.entitySet(named: "Items")?.isCountable == false)
        #expect(model.entitySet(named: "Others")?.isCountable == true)
    }
}
