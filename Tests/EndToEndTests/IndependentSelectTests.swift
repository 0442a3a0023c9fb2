import Browser
import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Session
import Sync
import Testing

// Nested in the write tests' suite, which is serialized: both work on mock-sap's first business partner, and a
// rename by the write tests between this test's page and its cut copy made that copy a new version (the test failed
// under load).
extension IndependentServerWriteTests {
    /// The `$select` of prefetches against a server we did not write: mock-sap's GWSAMPLE_BASIC (SAP Gateway's
    /// shapes; it refuses `*` beside paths, so whole entities are asked by name). Started by `.ci/checks`.
    @Suite(.serialized, .enabled(if: mockSAPRoot != nil, "CARDEALER_MOCKSAP_ROOT is not set (see .ci/checks)"))
    struct IndependentSelectTests {
        /// Sales orders' lists show an amount and its currency; business partners' their company.
        static let profile = #"""
            {"sets": {
                "BusinessPartnerSet": {"row": "{CompanyName}", "columns": [{"title": "Company", "value": "{CompanyName}"}]},
                "SalesOrderSet": {"row": "{SalesOrderID}", "columns": [
                    {"title": "Gross", "value": "{GrossAmount}"}, {"title": "Currency", "value": "{CurrencyCode}"}]}
            }}
            """#

        @Test func a_page_asks_its_orders_cut_orders_that_come_whole_are_whole_and_a_cut_partner_erases_nothing()
            async throws
        {
            let root = try #require(mockSAPRoot)
            let directory = NSTemporaryDirectory() + "independent-select-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var settings = SessionSettings(serviceRoot: root)
            settings.profile = try DisplayProfile.load(from: Data(Self.profile.utf8))
            settings.cacheFile = directory + "/cache.sqlite"
            let session = try await BrowsingSession.start(settings)
            let (cache, engine) = (session.cache, session.engine)

            // When the business partners' list shows its first rows
            let list = ListRequest(entitySet: "BusinessPartnerSet")
            engine.screenDidShow(.list(list), visible: 0..<5, screen: ScreenID(1))
            await engine.waitUntilIdle()

            // Then the page was answered (mock-sap took the $select), its partners whole, their orders cut
            let log = try cache.requestLog(limit: 100)
            let page = try #require(log.first { $0.url.contains("BusinessPartnerSet?") })
            #expect(page.status == 200 && page.url.contains("$select="), "\(page.url): \(page.error ?? "")")
            #expect(page.url.contains("ToSalesOrders/GrossAmount") && !page.url.contains("ToSalesOrders/NetAmount"))
            let window = try cache.listWindow(list.key, range: 0..<1)
            let partner = try #require(window.rows.first?.entity)
            #expect(partner.isComplete && partner["WebAddress"] != nil)
            let orders = try #require(try cache.relationKeys(partner.key, navigation: "ToSalesOrders")?.keys)
            let orderKey = try #require(orders.first, "the first partner has no orders")
            // mock-sap 0.22 honours `$select` at the top level but answers expansions whole: such an order carries every
            // property, so it is taken as whole — its detail needs nothing more
            let order = try #require(try cache.entity(orderKey))
            #expect(order.isComplete && order["NetAmount"] != nil && order.etag != nil)
            let before = try cache.requestLog(limit: 100).count
            engine.screenDidShow(.entity(orderKey), visible: 0..<1, screen: ScreenID(2))
            await engine.waitUntilIdle()
            #expect(try cache.requestLog(limit: 100).count == before)

            // When the cursor rests on the partner: the level after next is asked with the partner cut to its column
            engine.cursorDidRest(on: partner.key, neighbours: [], in: ScreenID(1))
            await engine.waitUntilIdle()
            let rest = try #require(try cache.requestLog(limit: 100).first { $0.url.contains("BusinessPartnerSet('") })
            #expect(rest.status == 200 && rest.url.contains("$select=BusinessPartnerID,CompanyName,"), "\(rest.url)")
            // Then the cut copy (same version) merged: nothing the page brought was erased, and it is still whole
            let merged = try #require(try cache.entity(partner.key))
            #expect(merged.isComplete && merged["WebAddress"] == partner["WebAddress"] && merged["WebAddress"] != nil)
            let failed = try cache.requestLog(limit: 100).filter { ($0.status ?? 0) >= 400 }
            #expect(failed.isEmpty, "\(failed.map { "\($0.url) \($0.status ?? 0)" })")
        }
    }
}
