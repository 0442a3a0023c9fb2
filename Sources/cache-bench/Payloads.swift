import ODataCore

/// Recorded-style OData v2 payloads for the benchmark: people pages with `PersonCar/Car` expanded,
/// shaped like the CarDealer service's answers (`__metadata`, `/Date()/`, `__deferred`, `__count`, `__next`).
enum Payloads {
    static let root = "http://127.0.0.1:8080/CarDealer.svc/"

    /// One page of `size` people starting at `first`, each with two cars through PersonCar.
    static func peoplePage(first: Int, size: Int, total: Int) -> [UInt8] {
        var text = #"{"d":{"results":["#
        for id in first..<(first + size) {
            if id > first { text += "," }
            text +=
                #"{"__metadata":{"uri":"\#(root)Person(\#(id))","type":"edmexampleModel.Person","etag":"W/\"X'\#(id)'\""},"#
            text +=
                #""personID":\#(id),"firstName":"First \#(id)","lastName":"Last \#(id)","ssn":"\#(100_000_000 + id)","#
            text += #""createDate":"\/Date(\#(1_257_008_908_440 + id))\/","PersonCar":{"results":["#
            for slot in 0..<2 {
                let link = id * 2 + slot
                if slot > 0 { text += "," }
                text += #"{"__metadata":{"uri":"\#(root)PersonCar(\#(link))","type":"edmexampleModel.PersonCar"},"#
                text += #""personCarID":\#(link),"createStamp":"\/Date(1257103813990)\/","#
                text += #""Car":{"__metadata":{"uri":"\#(root)Car(\#(link))","type":"edmexampleModel.Car"},"#
                text += #""carID":\#(link),"make":"Ford","model":"Model \#(link % 97)","#
                text += #""manufactureDate":"\/Date(1099242508440)\/","createStamp":"\/Date(1257008940840)\/","#
                text += #""PersonCar":{"__deferred":{"uri":"\#(root)Car(\#(link))/PersonCar"}}},"#
                text += #""Person":{"__deferred":{"uri":"\#(root)PersonCar(\#(link))/Person"}},"#
                text +=
                    #""PersonCarMaintenance":{"__deferred":{"uri":"\#(root)PersonCar(\#(link))/PersonCarMaintenance"}}}"#
            }
            text += "]}}"
        }
        let next = first + size < total ? #","__next":"\#(root)Person?$skiptoken=\#(first + size)""# : ""
        text += #"],"__count":"\#(total)"\#(next)}}"#
        return Array(text.utf8)
    }

    static let edmx = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
          xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
         <edmx:DataServices m:DataServiceVersion="2.0">
          <Schema Namespace="edmexampleModel" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
           <EntityType Name="Person"><Key><PropertyRef Name="personID"/></Key>
            <Property Name="personID" Type="Edm.Int32" Nullable="false"/><Property Name="firstName" Type="Edm.String"/>
            <Property Name="lastName" Type="Edm.String"/><Property Name="ssn" Type="Edm.String"/>
            <Property Name="createDate" Type="Edm.DateTime"/>
            <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.PC_P" FromRole="Person" ToRole="PersonCar"/>
           </EntityType>
           <EntityType Name="Car"><Key><PropertyRef Name="carID"/></Key>
            <Property Name="carID" Type="Edm.Int32" Nullable="false"/><Property Name="make" Type="Edm.String"/>
            <Property Name="model" Type="Edm.String"/><Property Name="manufactureDate" Type="Edm.DateTime"/>
            <Property Name="createStamp" Type="Edm.DateTime"/>
            <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.PC_C" FromRole="Car" ToRole="PersonCar"/>
           </EntityType>
           <EntityType Name="PersonCar"><Key><PropertyRef Name="personCarID"/></Key>
            <Property Name="personCarID" Type="Edm.Int32" Nullable="false"/><Property Name="createStamp" Type="Edm.DateTime"/>
            <NavigationProperty Name="Car" Relationship="edmexampleModel.PC_C" FromRole="PersonCar" ToRole="Car"/>
            <NavigationProperty Name="Person" Relationship="edmexampleModel.PC_P" FromRole="PersonCar" ToRole="Person"/>
           </EntityType>
           <Association Name="PC_P"><End Role="Person" Type="edmexampleModel.Person" Multiplicity="1"/>
            <End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
           <Association Name="PC_C"><End Role="Car" Type="edmexampleModel.Car" Multiplicity="1"/>
            <End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
           <EntityContainer Name="Entities" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Person" EntityType="edmexampleModel.Person"/>
            <EntitySet Name="Car" EntityType="edmexampleModel.Car"/>
            <EntitySet Name="PersonCar" EntityType="edmexampleModel.PersonCar"/>
           </EntityContainer>
          </Schema>
         </edmx:DataServices>
        </edmx:Edmx>
        """
}
