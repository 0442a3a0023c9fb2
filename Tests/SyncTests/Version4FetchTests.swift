import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// The fetcher on an OData v4 service (issue 19): v4 headers and URLs, v4 answers filed flat like v2 ones, and a
/// service that refuses options inside `$expand` asked again one level deep, once learned for good.
@Suite struct Version4FetchTests {
    static let root = "http://v4.test/shop/"
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int64" Nullable="false"/>
                <NavigationProperty Name="Lines" Type="Collection(Shop.Line)" Partner="Order"/>
              </EntityType>
              <EntityType Name="Line"><Key><PropertyRef Name="order"/><PropertyRef Name="position"/></Key>
                <Property Name="order" Type="Edm.Int64" Nullable="false"/>
                <Property Name="position" Type="Edm.Int32" Nullable="false"/>
                <Property Name="product" Type="Edm.String"/>
                <NavigationProperty Name="Product" Type="Shop.Product"/>
              </EntityType>
              <EntityType Name="Product"><Key><PropertyRef Name="code"/></Key>
                <Property Name="code" Type="Edm.String" Nullable="false"/>
              </EntityType>
              <EntityContainer Name="C">
                <EntitySet Name="Orders" EntityType="Shop.Order">
                  <NavigationPropertyBinding Path="Lines" Target="Lines"/>
                </EntitySet>
                <EntitySet Name="Lines" EntityType="Shop.Line">
                  <NavigationPropertyBinding Path="Product" Target="Products"/>
                </EntitySet>
                <EntitySet Name="Products" EntityType="Shop.Product"/>
              </EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()
    static let order = EntityKey(entitySet: "Orders", value: .int(7))

    /// A v4 service that answers 400 to a nested `$expand`, as mock-sap does.
    func makeTransport() -> FakeTransport {
        FakeTransport { request, _ in
            if request.url.contains("($expand=") {
                return json(
                    #"{"error":{"code":"400","message":"Option '$expand' is not supported inside $expand"}}"#,
                    status: 400)
            }
            return json(
                #"{"@odata.context":"\#(Self.root)$metadata#Orders/$entity","@odata.etag":"W/\"1\"","id":7,"#
                    + #""Lines":[{"order":7,"position":1,"product":"tyre"},{"order":7,"position":2,"product":"oil"}]}"#
            )
        }
    }

    func makeEngine(_ transport: FakeTransport, cache: CacheDatabase) throws -> SyncEngine {
        try SyncEngine.forTesting(root: Self.root, transport: transport, model: Self.model, cache: cache)
    }

    @Test func a_refused_nested_expand_is_asked_again_one_level_deep_and_remembered() async throws {
        let transport = makeTransport()
        let cache = try CacheDatabase()
        let engine = try makeEngine(transport, cache: cache)
        // When the order's lines and their products are asked for in one request
        let nested = await engine.builder.url(
            ResourcePath(Self.order), QueryOptions(expand: ["Lines", "Lines/Product"]))
        #expect(nested == Self.root + "Orders(7)?$expand=Lines($expand=Product)")
        let result = await engine.fetch(nested, target: .entity(Self.order, expanded: ["Lines", "Lines/Product"]))
        // Then the 400 is followed by the same request one level deep, which lands
        let urls = await transport.requests.map(\.url)
        #expect(urls == [nested, Self.root + "Orders(7)?$expand=Lines"])
        #expect(result.outcome == .fetched)
        // in v4's headers' dialect
        #expect(await transport.requests.allSatisfy { $0.dialect == .v4 })
        // and is filed flat, keyed by the lines' two-part keys
        let lines = try cache.related(Self.order, navigation: "Lines")
        #expect(lines.elements?.map(\.key.canonical) == ["Lines(order=7,position=1)", "Lines(order=7,position=2)"])
        #expect(try cache.entity(Self.order)?.etag == "W/\"1\"")
        // And a later session on this cache asks one level deep from the start
        #expect(try cache.serviceFacts().contains(.refusesNestedExpand))
        let later = try makeEngine(makeTransport(), cache: cache)
        #expect(
            await later.builder.url(ResourcePath(Self.order), QueryOptions(expand: ["Lines", "Lines/Product"]))
                == Self.root + "Orders(7)?$expand=Lines")
    }

    @Test func a_v4_list_page_asks_for_its_count_and_takes_it_from_the_answer() async throws {
        let transport = FakeTransport { request, _ in
            json(
                #"{"@odata.count":2,"value":[{"order":7,"position":1,"product":"tyre"},"#
                    + #"{"order":7,"position":2,"product":"oil"}]}"#)
        }
        let cache = try CacheDatabase()
        let engine = try makeEngine(transport, cache: cache)
        engine.screenDidShow(.list(ListRequest(entitySet: "Lines")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let first = try #require(await transport.requests.first?.url)
        #expect(first.hasPrefix(Self.root + "Lines?"))
        #expect(first.contains("$count=true") && !first.contains("$inlinecount"))
        let state = try cache.listState(ListRequest(entitySet: "Lines").key)
        #expect(state?.totalCount == 2)
        #expect(state?.isComplete == true)
    }
}
