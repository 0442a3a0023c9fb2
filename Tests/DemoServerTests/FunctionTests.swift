import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service's function (issue 36): declared in both dialects' `$metadata` as the client's model reads
/// them, answered as the set's entities its filter selects, paged with its parameter kept, refused in a sentence
/// when called wrong.
@Suite struct FunctionTests {
    @Test func declared_in_both_dialects_as_a_function_that_lists_cars() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        for (path, dialect) in [("$metadata", ODataDialect.v2), (service.server.version4URL + "$metadata", .v4)] {
            let model = try EDMXParser.parse(Array(try await service.get(path).body))
            let function = try #require(model.unboundOperations.first { $0.name == "CarsBuiltBefore" }, "\(dialect)")
            #expect(function.listsEntities && function.entitySet == "Car", "\(dialect)")
            #expect(function.displayName == "Cars built before", "\(dialect)")
            #expect(function.parameters.map(\.name) == ["year"] && function.parameters.first?.label == "Year")
            #expect(model.listedSet(ofSegment: "CarsBuiltBefore") == "Car")
        }
    }

    @Test func its_answer_is_the_cars_built_before_that_year_paged_with_the_year_kept() async throws {
        let service = try await LiveService.start(pageSize: 5)
        defer { Task { await service.server.stop() } }
        let all = try await service.collection(
            "Car?$filter=manufactureDate lt datetime'1990-01-01T00:00:00'&$inlinecount=allpages")
        let answer = try await service.collection("CarsBuiltBefore?year=1990&$inlinecount=allpages")
        #expect(answer.count == all.count && (answer.count ?? 0) > 5)
        #expect(answer.entities.map(\.key) == all.entities.map(\.key))
        let next = try #require(answer.nextLink)
        #expect(next.contains("CarsBuiltBefore?") && next.contains("year=1990"), "\(next)")
        // Its second page is the set's second page under the same filter
        let second = try await service.collection(next)
        let setSecond = try await service.collection(try #require(all.nextLink))
        #expect(second.entities.map(\.key) == setSecond.entities.map(\.key) && !second.entities.isEmpty)
        // v4: the year by an alias, or inline
        let v4 = service.server.version4URL
        for call in ["CarsBuiltBefore(year=@year)?@year=1990&$count=true", "CarsBuiltBefore(year=1990)?$count=true"] {
            let response = try await service.get(v4 + call)
            #expect(response.status == 200, "\(call)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("\"@odata.count\":\(all.count ?? -1)"))
        }
    }

    @Test func a_call_without_its_year_or_with_a_word_is_a_sentence() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        for call in [
            "CarsBuiltBefore", "CarsBuiltBefore?year=soon", "CarsBuiltBefore?year=0", "CarsBuiltBefore(year=1990)",
            "CarsBuiltBefore?year=1990&year=2000",
        ] {
            let response = try await service.get(call)
            #expect(response.status == 400, "\(call)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("CarsBuiltBefore"), "\(call)")
        }
        let v4 = service.server.version4URL
        for call in ["CarsBuiltBefore(year=1990,year=2000)", "CarsBuiltBefore(year=@y)?@y=1990&@y=2000"] {
            #expect(try await service.get(v4 + call).status == 400, "\(call)")
        }
    }
}
