import Foundation
import Testing

@testable import ODataCore

/// A many-to-many navigation with no link entity between: what joins two entities is a link of its own, removed
/// with `DELETE` of v2's `$links` or v4's `$ref` (issue 32: removing a row from such a list must not delete it).
@Suite struct ManyToManyLinkTests {
    static let version4 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        <edmx:DataServices><Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        <EntityType Name="Person"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Int32" Nullable="false"/>
        <NavigationProperty Name="Friends" Type="Collection(T.Person)" Partner="Friends"/>
        <NavigationProperty Name="Trips" Type="Collection(T.Trip)" Partner="Traveller"/></EntityType>
        <EntityType Name="Trip"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Int32" Nullable="false"/>
        <NavigationProperty Name="Traveller" Type="T.Person" Partner="Trips"/></EntityType>
        <EntityContainer Name="C">
        <EntitySet Name="People" EntityType="T.Person"><NavigationPropertyBinding Path="Friends" Target="People"/>
        <NavigationPropertyBinding Path="Trips" Target="Trips"/></EntitySet>
        <EntitySet Name="Trips" EntityType="T.Trip"><NavigationPropertyBinding Path="Traveller" Target="People"/></EntitySet>
        </EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
        """

    static let version2 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
        <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
        <Schema Namespace="T" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
        <EntityType Name="Person"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Int64" Nullable="false"/>
        <NavigationProperty Name="Friends" Relationship="T.Friendship" FromRole="A" ToRole="B"/></EntityType>
        <Association Name="Friendship"><End Role="A" Type="T.Person" Multiplicity="*"/><End Role="B" Type="T.Person" Multiplicity="*"/></Association>
        <EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="People" EntityType="T.Person"/>
        <AssociationSet Name="Friendships" Association="T.Friendship"><End Role="A" EntitySet="People"/><End Role="B" EntitySet="People"/></AssociationSet>
        </EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
        """

    /// A link entity made in one v2 changeset with the car it links is posted through the car's navigation to it, so
    /// the navigation back is what the outbox needs (issue 32, item 2).
    @Test func the_navigation_back_is_the_partner_in_v4_and_the_same_association_with_the_roles_swapped_in_v2() throws {
        let version4 = try EDMXParser.parse(Self.version4)
        #expect(version4.partnerNavigation("Traveller", fromSet: "Trips") == "Trips")
        #expect(version4.partnerNavigation("Trips", fromSet: "People") == "Traveller")
        let version2 = try EDMXParser.parse(
            Self.version2.replacingOccurrences(
                of: "</EntityType>",
                with:
                    #"<NavigationProperty Name="FriendOf" Relationship="T.Friendship" FromRole="B" ToRole="A"/></EntityType>"#
            ))
        #expect(version2.partnerNavigation("Friends", fromSet: "People") == "FriendOf")
        #expect(version2.partnerNavigation("FriendOf", fromSet: "People") == "Friends")
        // With no navigation back, none
        #expect(try EDMXParser.parse(Self.version2).partnerNavigation("Friends", fromSet: "People") == nil)
        #expect(version4.partnerNavigation("Nowhere", fromSet: "People") == nil)
    }

    @Test func a_collection_whose_partner_is_a_collection_is_many_to_many_and_one_to_many_is_not() throws {
        let model = try EDMXParser.parse(Self.version4)
        #expect(model.isManyToMany("Friends", fromSet: "People"))
        #expect(!model.isManyToMany("Trips", fromSet: "People"))
        #expect(!model.isManyToMany("Traveller", fromSet: "Trips"))
        let version2 = try EDMXParser.parse(Self.version2)
        #expect(version2.isManyToMany("Friends", fromSet: "People"))
        // The demo's ownerships are one to many (PersonCar is the link entity)
        #expect(!CarDealerModelForCoreTests.isManyToMany)
    }

    @Test func the_link_to_remove_is_addressed_as_each_dialect_spells_it() throws {
        let (one, two) = (
            try #require(EntityKey(canonical: "People(1)")), try #require(EntityKey(canonical: "People(2)"))
        )
        let version4 = ODataURLBuilder(serviceRoot: "http://h/svc/", model: try EDMXParser.parse(Self.version4))
        #expect(
            version4.linkURL(parent: one, navigation: "Friends", child: two)
                == "http://h/svc/People(1)/Friends/$ref?$id=http://h/svc/People(2)")
        let version2 = ODataURLBuilder(serviceRoot: "http://h/svc/", model: try EDMXParser.parse(Self.version2))
        #expect(
            version2.linkURL(parent: one, navigation: "Friends", child: two)
                == "http://h/svc/People(1L)/$links/Friends(2L)")
    }
}

/// The built-in service's model as the core tests read it (its `$metadata` fixture).
enum CarDealerModelForCoreTests {
    static var isManyToMany: Bool {
        guard let model = try? EDMXParser.parse(fixture("cardealer-metadata.xml")) else { return true }
        return model.isManyToMany("PersonCar", fromSet: "Person")
    }
}
