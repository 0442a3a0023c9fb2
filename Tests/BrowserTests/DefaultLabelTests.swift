import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Without a profile, rows and breadcrumbs are labelled from `$metadata`, and each screen is named once.
@MainActor
@Suite struct DefaultLabelTests {
    static let edmx = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
          <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
            <Schema Namespace="NW" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="Order_Detail">
                <Key><PropertyRef Name="OrderID"/><PropertyRef Name="ProductID"/></Key>
                <Property Name="OrderID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="ProductID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="UnitPrice" Type="Edm.Decimal"/>
              </EntityType>
              <EntityType Name="Employee">
                <Key><PropertyRef Name="EmployeeID"/></Key>
                <Property Name="EmployeeID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Notes" Type="Edm.String"/>
                <Property Name="LastName" Type="Edm.String"/>
                <Property Name="FirstName" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Customer">
                <Key><PropertyRef Name="CustomerID"/></Key>
                <Property Name="CustomerID" Type="Edm.String" Nullable="false"/>
                <Property Name="Phone" Type="Edm.String"/>
                <Property Name="CompanyName" Type="Edm.String"/>
                <Property Name="ContactName" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Category">
                <Key><PropertyRef Name="CategoryID"/></Key>
                <Property Name="CategoryID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Code" Type="Edm.String"/>
                <Property Name="Description" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Shipper">
                <Key><PropertyRef Name="ShipperID"/></Key>
                <Property Name="ShipperID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Phone" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Plant" xmlns:sap="http://www.sap.com/Protocols/SAPData">
                <Key><PropertyRef Name="Werks"/></Key>
                <Property Name="Werks" Type="Edm.String" Nullable="false" sap:label="Plant" sap:text="Name1"/>
                <Property Name="Title" Type="Edm.String"/>
                <Property Name="Name1" Type="Edm.String" sap:label="Plant name"/>
              </EntityType>
              <EntityContainer Name="NWEntities" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Order_Details" EntityType="NW.Order_Detail"/>
                <EntitySet Name="Employees" EntityType="NW.Employee"/>
                <EntitySet Name="Customers" EntityType="NW.Customer"/>
                <EntitySet Name="Categories" EntityType="NW.Category"/>
                <EntitySet Name="Shippers" EntityType="NW.Shipper"/>
                <EntitySet Name="Plants" EntityType="NW.Plant"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func each_set_gets_the_label_its_metadata_suggests() throws {
        // Given a model without a profile
        let profile = DisplayProfile.defaults(for: try EDMXParser.parse(Array(Self.edmx.utf8)))
        // Then a key's sap:text wins, then a name-like property, then a first/last pair, a …Name, the first string, the keys by name
        #expect(profile.sets["Categories"]?.row == "{Description}")
        #expect(profile.sets["Employees"]?.row == "{FirstName} {LastName}")
        #expect(profile.sets["Customers"]?.row == "{CompanyName}")
        #expect(profile.sets["Shippers"]?.row == "{Phone}")
        // (the text a key's sap:text names comes before any name-like property)
        #expect(profile.sets["Plants"]?.row == "{Name1}")
        #expect(profile.sets["Order_Details"]?.row == "OrderID {OrderID} · ProductID {ProductID}")
        #expect(profile.sets["Order_Details"]?.search == [])
        // And a row of a set without strings reads as its keys
        let row = ValueFormatter.fill(profile.sets["Order_Details"]!.row!) {
            ["OrderID": .int(10248), "ProductID": .int(11)][$0]
        }
        #expect(row == "OrderID 10248 · ProductID 11")
    }

    @Test func drilling_through_details_names_each_screen_once() throws {
        // Given the CarDealer cache browsed without a profile, from the Person list
        let cache = try temporaryCache()
        try seedPeople(cache, people: [(1, "Ann", "Smith", [(1, 2, "Ford", "Explorer")])])
        let people = ListRequest(entitySet: "Person")
        try cache.writeBlocking { session in
            try session.writeListPage(
                people.key, offset: 0, entityKeys: ["Person(1)"], totalCount: 1, nextLink: nil,
                isLastPage: true, at: Date())
        }
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.plainModel,
            profile: DisplayProfile(root: nil, sets: [:]))
        let (app, _) = BrowserApp.presented(environment, size: TerminalSize(columns: 100, rows: 16))
        // When Enter opens Ann, her PersonCar navigation, its first row, and that link's Car navigation
        _ = app.handle([.key(.enter)])
        let detail = try #require(app.stack.top as? EntityDetailController)
        let toLinks = try #require(detail.lines.firstIndex { $0.navigation == "PersonCar" })
        _ = app.handle(Array(repeating: .key(.down), count: toLinks) + [.key(.enter), .key(.enter)])
        let link = try #require(app.stack.top as? EntityDetailController)
        let toCar = try #require(link.lines.firstIndex { $0.navigation == "Car" })
        _ = app.handle(Array(repeating: .key(.down), count: toCar) + [.key(.enter)])
        // Then the breadcrumb names every screen once
        #expect(app.stack.breadcrumb == ["Person", "Ann Smith", "PersonCar", "personCarID 1", "Car"])
    }
}
