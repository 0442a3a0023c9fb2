import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// `cardealer export URL PATH` (issue 15): every page followed, RFC 4180 CSV and plain JSON that read back to the
/// same values, hostile text kept byte for byte in a file and made harmless on a terminal; against the built-in
/// service and mock-sap.
@Suite(.tags(.endToEnd), .serialized) struct ExportTests {
    /// Runs the built binary to its end with a private cache, on a thread of its own; (status, output, error).
    static func export(_ arguments: [String], directory: String) async throws -> (Int32, String, String) {
        try await offThePool { try exportBlocking(arguments, directory: directory) }
    }

    static func exportBlocking(_ arguments: [String], directory: String) throws -> (Int32, String, String) {
        let ended = try BuiltProducts.runCardealer(
            ["export"] + arguments, in: directory, environment: ["XDG_CACHE_HOME": directory + "/cache"],
            errorsApart: true)
        return (ended.status, ended.output, ended.errors)
    }

    /// RFC 4180 records (quoted fields may hold commas, quotes and line breaks).
    static func parseCSV(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if characters.first == "\"" {
                        field.unicodeScalars.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == "," {
                record.append(field)
                field = ""
            } else if scalar == "\r", characters.first == "\n" {
                characters.removeFirst()
                record.append(field)
                records.append(record)
                record = []
                field = ""
            } else {
                field.unicodeScalars.append(scalar)
            }
        }
        if !field.isEmpty || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        return records
    }

    @Test(arguments: [false, true])
    func every_page_is_exported_and_csv_and_json_agree_to_the_byte(hostile: Bool) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-export")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Pages of 7, so that 30 people take five pages
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite", pageSize: 7, hostile: hostile))
        let csvPath = directory + "/people.csv"
        let jsonPath = directory + "/people.json"
        let csv = try await Self.export([server.baseURL, "Person", "--output", csvPath], directory: directory)
        #expect(csv.0 == 0, "\(csv)")
        #expect(csv.2.contains("30 Person entities in 5 pages"), "\(csv.2)")
        let json = try await Self.export(
            [server.version4URL, "Person", "--format", "json", "--output", jsonPath], directory: directory)
        #expect(json.0 == 0, "\(json)")
        await server.stop()

        let records = Self.parseCSV(try String(contentsOfFile: csvPath, encoding: .utf8))
        #expect(records.first == ["personID", "firstName", "lastName", "ssn", "createDate"])
        let rows = records.dropFirst()
        #expect(rows.count == 30 && rows.allSatisfy { $0.count == 5 })
        #expect(Set(rows.map { $0[0] }) == Set((1...30).map(String.init)))
        let objects = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [[String: Any]]
        )
        #expect(objects.count == 30)
        // The same last names both ways, hostile ones (escape sequences, line breaks, 100 KB) byte for byte
        let fromCSV = Dictionary(uniqueKeysWithValues: rows.map { ($0[0], $0[2]) })
        for object in objects {
            let id = "\(object["personID"] as? Int ?? -1)"
            #expect(fromCSV[id] == object["lastName"] as? String, "person \(id)")
        }
        if hostile { #expect(fromCSV.values.contains { $0.contains("\u{1B}]0;pwned-title") }) }
    }

    @Test func a_path_a_filter_and_mistakes_in_words() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-export")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite", pageSize: 5))
        // Bob's two ownerships, through a navigation path
        let owned = try await Self.export([server.baseURL, "Person(1)/PersonCar"], directory: directory)
        #expect(Self.parseCSV(owned.1).count == 3, "\(owned)")
        // Costly repairs only: every cost over 1000
        let costly = try await Self.export(
            [server.baseURL, "Maintenance", "--filter", "cost gt 1000", "--format", "json"], directory: directory)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(costly.1.utf8)) as? [[String: Any]])
        #expect(!objects.isEmpty)
        #expect(objects.allSatisfy { (($0["cost"] as? NSNumber)?.doubleValue ?? 0) > 1000 }, "\(costly.1.prefix(500))")
        // No such set, no such navigation: a sentence and a failure status
        let noSet = try await Self.export([server.baseURL, "Nope"], directory: directory)
        #expect(noSet.0 != 0 && noSet.2.contains("no entity set 'Nope'; it has Person, Car"), "\(noSet)")
        let noNavigation = try await Self.export([server.baseURL, "Person(1)/Wheels"], directory: directory)
        #expect(noNavigation.0 != 0 && noNavigation.2.contains("Person has no navigation 'Wheels'"), "\(noNavigation)")
        await server.stop()
    }

    @Test(.enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func written_to_a_terminal_hostile_text_is_shown_not_obeyed() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-export")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 5, dataPath: directory + "/demo.sqlite", hostile: true))
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let tmux = try TmuxSession(columns: 200, rows: 50)
        defer { tmux.kill() }
        try tmux.typeLine("XDG_CACHE_HOME=\(directory)/cache \(binary) export \(server.baseURL) Person; echo EXIT=$?")
        let done = try await tmux.waitFor { $0.contains("EXIT=0") }
        await server.stop()
        #expect(done.matched, "\(done.screen)")
        // The OSC title never reached tmux; the escape shows as ␛
        #expect(try tmux.display("#{pane_title}") != "pwned-title")
        #expect(done.screen.contains("␛"), "\(done.screen)")
    }
}

/// `:export` in the browser of a list mostly not cached (issue 15): the rest fetched with a progress line, then the
/// same rows as `cardealer export` writes.
@Suite(.tags(.endToEnd), .serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct PaletteExportTests {
    @Test func the_whole_list_is_fetched_and_written_as_the_service_has_it() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-palette-export")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 700, dataPath: directory + "/demo.sqlite", pageSize: 25))
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let tmux = try TmuxSession(columns: 100, rows: 24)
        defer { tmux.kill() }
        try tmux.typeLine(
            "XDG_CACHE_HOME=\(directory)/cache XDG_DATA_HOME=\(directory)/data XDG_STATE_HOME=\(directory)/state "
                + "\(binary) browse \(server.baseURL)Person; echo EXIT=$?")
        #expect(try await tmux.waitFor { $0.contains("1 of 700") && !$0.contains("loading…") }.matched)
        try tmux.sendKeys(":")
        try tmux.run("send-keys", "-t", tmux.target, "-l", "export \(directory)/people.csv")
        try tmux.sendKeys("Enter")
        let written = try await tmux.waitFor(timeout: .seconds(60)) { $0.contains("Wrote 700 Person") }
        #expect(written.matched, "\(written.screen)")
        try tmux.sendKeys("q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
        // The same records as the command-line export asks of the service, header and all
        let fromBrowser = Self.sorted(
            ExportTests.parseCSV(try String(contentsOfFile: directory + "/people.csv", encoding: .utf8)))
        let exported = try await ExportTests.export([server.baseURL, "Person"], directory: directory)
        await server.stop()
        let fromService = Self.sorted(ExportTests.parseCSV(exported.1))
        #expect(fromBrowser.count == 701 && fromBrowser == fromService)
    }

    /// The header, then the records by their first field.
    static func sorted(_ records: [[String]]) -> [[String]] {
        Array(records.prefix(1)) + records.dropFirst().sorted { ($0.first ?? "") < ($1.first ?? "") }
    }
}

/// The same command against mock-sap, a v2 server we did not write.
@Suite(.tags(.endToEnd), .enabled(if: mockSAPRoot != nil, "CARDEALER_MOCKSAP_ROOT is not set (see .ci/checks)"))
struct IndependentExportTests {
    @Test func every_business_partner_and_as_many_as_the_server_counts() async throws {
        let root = try #require(mockSAPRoot)
        let directory = try BuiltProducts.temporaryDirectory("cardealer-export")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let exported = try await ExportTests.export([root, "BusinessPartnerSet"], directory: directory)
        #expect(exported.0 == 0, "\(exported.2)")
        let records = ExportTests.parseCSV(exported.1)
        let header = try #require(records.first)
        #expect(header.contains("BusinessPartnerID") && header.contains("CompanyName"), "\(header)")
        // The server's own count of the set
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "BusinessPartnerSet/$count"))
        let counted = Int(
            String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(
            counted != nil && records.count - 1 == counted, "\(records.count - 1) rows, server counts \(counted ?? -1)")
        #expect(records.dropFirst().allSatisfy { $0.count == header.count })
    }
}
