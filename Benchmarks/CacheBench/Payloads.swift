import Foundation
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

    /// The CarDealer `$metadata`, exactly as the built-in service serves it (DemoServerTests check the
    /// copy). Read from a file rather than from the server's code so that the memory figure is the
    /// cache's and the fetcher's alone, not the HTTP server's linked in beside them.
    static var edmx: String {
        get throws {
            let fixture = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Benchmarks/Fixtures/cardealer-metadata.xml")
            return try String(contentsOf: fixture, encoding: .utf8)
        }
    }
}
