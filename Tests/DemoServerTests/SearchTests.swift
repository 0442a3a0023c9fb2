import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service's free-text search (issues 33 and 37): v4 `$search` and SAP's v2 `search` on the sets it
/// declares searchable, answered as the same `$filter` on their searchable columns would be; refused, in a sentence,
/// elsewhere.
@Suite struct SearchTests {
    /// The person IDs `relative` (under the v4 root) answers, every page followed.
    func ids(_ service: LiveService, v4 relative: String) async throws -> [Int64] {
        var ids: [Int64] = []
        var next: String? = service.server.version4URL + relative
        while let url = next {
            let response = try await service.get(url)
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            ids += ((object["value"] as? [[String: Any]]) ?? []).compactMap { row -> Int64? in
                (row["personID"] as? Int).map(Int64.init) ?? (row["personID"] as? NSNumber)?.int64Value
            }
            next = (object["@odata.nextLink"] as? String).map {
                $0.hasPrefix("http") ? $0 : service.server.version4URL + $0
            }
        }
        return ids
    }

    func v4(_ option: String, _ value: String) -> String {
        "Person?\(option)=\(PercentEncoding.encodeQueryValue(value))&$orderby=personID&$top=5000"
    }

    /// `$filter` of a term on both searchable columns, as the search is meant to answer it.
    func either(_ term: String) -> String {
        let literal = ODataLiteral.quote(term)
        return "contains(tolower(lastName),\(literal)) or contains(tolower(firstName),\(literal))"
    }

    @Test func a_search_finds_what_the_same_filter_on_the_searchable_names_finds() async throws {
        let service = try await LiveService.start(pageSize: 40)
        defer { Task { await service.server.stop() } }
        for term in ["son", "an", "SAM"] {
            let searched = try await ids(service, v4: v4("$search", term))
            let filtered = try await ids(service, v4: v4("$filter", either(term.lowercased())))
            #expect(!searched.isEmpty && searched == filtered, "\(term): \(searched.count) against \(filtered.count)")
        }
        // Words (AND), OR, NOT and parentheses, and a phrase with a space in it
        let son = Set(try await ids(service, v4: v4("$filter", either("son"))))
        let ann = Set(try await ids(service, v4: v4("$filter", either("an"))))
        let all = Set(try await ids(service, v4: "Person?$orderby=personID&$top=5000"))
        #expect(Set(try await ids(service, v4: v4("$search", "son an"))) == son.intersection(ann))
        #expect(Set(try await ids(service, v4: v4("$search", "son AND an"))) == son.intersection(ann))
        #expect(Set(try await ids(service, v4: v4("$search", "son OR an"))) == son.union(ann))
        #expect(Set(try await ids(service, v4: v4("$search", "NOT son"))) == all.subtracting(son))
        #expect(Set(try await ids(service, v4: v4("$search", "(son OR an) NOT son"))) == ann.subtracting(son))
        let phrase = try await ids(service, v4: v4("$search", "\"an \\\"x\""))
        #expect(phrase == (try await ids(service, v4: v4("$filter", either("an \"x")))))
        // The next links carry the search (the service pages by 40)
        let first = try await service.get(service.server.version4URL + "Person?$search=an")
        let object = try #require(try JSONSerialization.jsonObject(with: first.body) as? [String: Any])
        let link = try #require(object["@odata.nextLink"] as? String)
        #expect(link.contains("$search=an"))
    }

    @Test func the_v2_root_takes_saps_search_option_and_says_which_sets_it_searches() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let collection = try await service.collection("Person?search=son&$orderby=personID&$top=5000")
        let searched = collection.entities.compactMap { entity -> Int64? in
            if case .int(let id)? = entity["personID"] { return id }
            return nil
        }
        #expect(!searched.isEmpty)
        #expect(searched == (try await ids(service, v4: v4("$filter", either("son")))))
        // Both documents say Person is searched and Car is not
        let v2 = try EDMXParser.parse(Array(try await service.get("$metadata").body))
        let v4 = try EDMXParser.parse(Array(try await service.get(service.server.version4URL + "$metadata").body))
        for model in [v2, v4] {
            #expect(model.searches("Person") && !model.searches("Car"))
            #expect(model.entitySet(named: "Car")?.isSearchable == false)
        }
    }

    @Test func a_search_the_service_cannot_answer_is_a_sentence() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let car = try await service.get(service.server.version4URL + "Car?$search=ford")
        #expect(car.status == 501)
        #expect(String(decoding: car.body, as: UTF8.self).contains("not searchable"))
        let hostile = [
            String(repeating: "(", count: 5000) + "a", String(repeating: "NOT ", count: 200) + "a",
            String(repeating: "NOT ", count: 45) + "son", Array(repeating: "a", count: 300).joined(separator: " OR "),
            Array(repeating: "son", count: 100).joined(separator: " "),
        ]
        for bad in ["\"open", "(son", "son)", "a\\b\"", "OR", "\"\""] + hostile {
            let response = try await service.get(
                service.server.version4URL + "Person?$search=" + PercentEncoding.encodeQueryValue(bad))
            #expect(response.status == 400, "\(bad)")
        }
        let twice = try await service.get("Person?search=a&search=b")
        #expect(twice.status == 400)
        // As many words as it takes is answered, not a failure of the SQL it becomes
        let many = Array(repeating: "son", count: 60).joined(separator: " ")
        let answered = try await service.get(
            service.server.version4URL + "Person?$search=" + PercentEncoding.encodeQueryValue(many))
        #expect(answered.status == 200, "\(String(decoding: answered.body, as: UTF8.self))")
        let nested = String(repeating: "NOT ", count: 15) + "son"
        let notted = try await service.get(
            service.server.version4URL + "Person?$search=" + PercentEncoding.encodeQueryValue(nested))
        #expect(notted.status == 200, "\(String(decoding: notted.body, as: UTF8.self))")
        // SAP's v2 search is the text as typed: what would be syntax in v4 is looked for
        for text in ["(x", "\"Mc", "NOT", "a OR"] {
            let response = try await service.get("Person?search=" + PercentEncoding.encodeQueryValue(text))
            #expect(response.status == 200, "\(text): \(String(decoding: response.body, as: UTF8.self))")
        }
    }
}
