// decode-bench: how fast ODataCore turns verbose JSON into typed entities.
//
// Generates a ≥ 10 MB OData v2 payload (People with their PersonCar links
// expanded one level, `__metadata` on every entity, `/Date(…)/` dates, an
// Int64 and a Decimal sent as strings), then times, on the same bytes:
//   1. Foundation's JSONSerialization alone (the floor: parsing only, untyped),
//   2. ODataCore's JSONReader alone,
//   3. ODataCore's PayloadDecoder with the $metadata model (typed values).
// Prints entities/s and MB/s for each. Run with `swift run -c release --package-path Benchmarks decode-bench`.
import Foundation
import ODataCore

let metadata = """
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"><edmx:DataServices>
    <Schema Namespace="edmexampleModel">
      <EntityType Name="Person"><Key><PropertyRef Name="personID"/></Key>
        <Property Name="personID" Type="Edm.Int32" Nullable="false"/><Property Name="firstName" Type="Edm.String"/>
        <Property Name="lastName" Type="Edm.String"/><Property Name="ssn" Type="Edm.String"/>
        <Property Name="createDate" Type="Edm.DateTime"/><Property Name="serial" Type="Edm.Int64"/>
        <Property Name="balance" Type="Edm.Decimal"/>
        <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.PP" FromRole="P" ToRole="PC"/></EntityType>
      <EntityType Name="PersonCar"><Key><PropertyRef Name="personCarID"/></Key>
        <Property Name="personCarID" Type="Edm.Int32" Nullable="false"/><Property Name="createStamp" Type="Edm.DateTime"/>
        <NavigationProperty Name="Person" Relationship="edmexampleModel.PP" FromRole="PC" ToRole="P"/>
        <NavigationProperty Name="Car" Relationship="edmexampleModel.PC" FromRole="PC" ToRole="C"/></EntityType>
      <EntityType Name="Car"><Key><PropertyRef Name="carID"/></Key><Property Name="carID" Type="Edm.Int32"/></EntityType>
      <Association Name="PP"><End Role="P" Type="edmexampleModel.Person" Multiplicity="1"/>
        <End Role="PC" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
      <Association Name="PC"><End Role="C" Type="edmexampleModel.Car" Multiplicity="1"/>
        <End Role="PC" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
      <EntityContainer Name="E" m:IsDefaultEntityContainer="true" xmlns:m="x">
        <EntitySet Name="Person" EntityType="edmexampleModel.Person"/>
        <EntitySet Name="PersonCar" EntityType="edmexampleModel.PersonCar"/>
        <EntitySet Name="Car" EntityType="edmexampleModel.Car"/>
        <AssociationSet Name="PP" Association="edmexampleModel.PP"><End Role="P" EntitySet="Person"/>
          <End Role="PC" EntitySet="PersonCar"/></AssociationSet>
        <AssociationSet Name="PC" Association="edmexampleModel.PC"><End Role="C" EntitySet="Car"/>
          <End Role="PC" EntitySet="PersonCar"/></AssociationSet>
      </EntityContainer>
    </Schema></edmx:DataServices></edmx:Edmx>
    """

let root = "http://127.0.0.1:8080/CarDealer.svc/"
let firstNames = ["Bob", "Alice", "Zoë", "Łukasz", "María", "Jean-Luc", "Aiko", "Olu"]
let lastNames = ["Samson", "O'Neil", "Nguyen", "Müller", "Smith", "García", "Kowalski", "Tanaka"]

/// One page of people with their links expanded; returns the JSON text and how many entities it holds.
func generatePayload(people: Int) -> (String, Int) {
    var parts: [String] = []
    parts.reserveCapacity(people)
    var entities = 0
    var linkID = 1
    for id in 1...people {
        var links: [String] = []
        for _ in 0..<(id % 4) {
            links.append(
                """
                {"__metadata":{"uri":"\(root)PersonCar(\(linkID))","type":"edmexampleModel.PersonCar"},\
                "personCarID":\(linkID),"createStamp":"\\/Date(\(1_257_103_813_990 + linkID * 1000))\\/",\
                "Person":{"__deferred":{"uri":"\(root)PersonCar(\(linkID))/Person"}},\
                "Car":{"__deferred":{"uri":"\(root)PersonCar(\(linkID))/Car"}}}
                """)
            linkID += 1
        }
        entities += 1 + links.count
        parts.append(
            """
            {"__metadata":{"uri":"\(root)Person(\(id))","type":"edmexampleModel.Person","etag":"W/\\"X'\(id)'\\""},\
            "personID":\(id),"firstName":"\(firstNames[id % 8])","lastName":"\(lastNames[id % 7].replacingOccurrences(of: "'", with: "'"))",\
            "ssn":"\(543_872_934 + id)","createDate":"\\/Date(\(1_257_008_908_440 - id * 86_400_000))\\/",\
            "serial":"\(9_007_199_254_740_993 + id)","balance":"\(id).\(id % 100)",\
            "PersonCar":{"results":[\(links.joined(separator: ","))]}}
            """)
    }
    return (#"{"d":{"results":["# + parts.joined(separator: ",") + #"],"__count":"\#(people)"}}"#, entities)
}

func measure(_ label: String, bytes: Int, entities: Int, repetitions: Int, _ body: () throws -> Void) rethrows {
    try body()  // warm-up
    var best = Double.infinity
    for _ in 0..<repetitions {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    let perSecond = Double(entities) / best
    let mbPerSecond = Double(bytes) / 1_048_576 / best
    print(
        "| \(label) | \(String(format: "%.1f", best * 1000)) ms | \(Int(perSecond).formatted()) | \(String(format: "%.1f", mbPerSecond)) |"
    )
}

let people = Int(ProcessInfo.processInfo.environment["DECODE_BENCH_PEOPLE"] ?? "") ?? 24_000
let (text, entityCount) = generatePayload(people: people)
let bytes = Array(text.utf8)
let data = Data(bytes)
let model = try EDMXParser.parse(metadata)
let decoder = PayloadDecoder(serviceRoot: root, model: model)
guard case .collection(let check) = try decoder.decode(bytes, entitySet: "Person"), check.entities.count == people
else {
    fatalError("the generated payload did not decode to \(people) people")
}
print(
    "payload: \(String(format: "%.1f", Double(bytes.count) / 1_048_576)) MB, \(entityCount.formatted()) entities "
        + "(\(people.formatted()) people + their expanded PersonCar links); best of 5 runs")
print("")
print("| decoder | time | entities/s | MB/s |")
print("|---|---|---|---|")
try measure(
    "Foundation JSONSerialization (parse only, untyped; floor)", bytes: bytes.count, entities: entityCount,
    repetitions: 5
) {
    _ = try JSONSerialization.jsonObject(with: data)
}
try measure("ODataCore JSONReader (parse only)", bytes: bytes.count, entities: entityCount, repetitions: 5) {
    _ = try JSONReader().read(bytes)
}
try measure(
    "ODataCore PayloadDecoder (typed by $metadata)", bytes: bytes.count, entities: entityCount, repetitions: 5
) {
    _ = try decoder.decode(bytes, entitySet: "Person")
}
