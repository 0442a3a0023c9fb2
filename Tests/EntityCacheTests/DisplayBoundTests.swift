import CarDealerTestSupport
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import EntityCache

/// Screens read values cut to what they can show; the full value stays in the cache.
@Suite struct DisplayBoundTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let person = EntityKey(entitySet: "Person", value: .int(1))
    /// 5 MB of two-byte and three-byte scalars, so a cut at a byte count lands inside one.
    let huge = String(repeating: "é—", count: 1_000_000)

    func cacheWithHugeNotes() throws -> CacheDatabase {
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Person(1)", entitySet: "Person", type: nil,
                properties: [.init(name: "name", value: .string("Ann")), .init(name: "notes", value: .string(huge))],
                etag: nil, at: date, partial: false)
            try session.writeListPage(
                ListRequest(entitySet: "Person").key, offset: 0, entityKeys: ["Person(1)"], totalCount: 1,
                nextLink: nil,
                isLastPage: true, at: date)
        }
        return cache
    }

    @Test func a_display_read_cuts_a_huge_string_and_says_which_property_was_cut() throws {
        // Given a person whose notes are 5 MB
        let cache = try cacheWithHugeNotes()
        // When the screens' reads fetch it, one by key and one through a list window
        let byKey = try #require(try cache.entity(person))
        let inList = try #require(
            try cache.listWindow(ListRequest(entitySet: "Person").key, range: 0..<1).rows.first?.entity)
        // Then both hold a bounded prefix ending in “…”, name the cut property, and keep the others whole
        for entity in [byKey, inList] {
            guard case .string(let notes)? = entity["notes"] else {
                Issue.record("notes missing")
                continue
            }
            #expect(notes.utf8.count <= PropertyCodec.DisplayBound.screen.textBytes + "…".utf8.count)
            #expect(notes.hasSuffix("…"))
            #expect(huge.hasPrefix(notes.dropLast()))
            #expect(entity.cutProperties == ["notes"])
            #expect(entity["name"] == .string("Ann"))
        }
    }

    @Test func the_full_read_returns_the_whole_value() throws {
        // Given a person whose notes are 5 MB
        let cache = try cacheWithHugeNotes()
        // When it is read whole
        let entity = try #require(try cache.fullEntity(person))
        // Then nothing is cut
        #expect(entity["notes"] == .string(huge))
        #expect(entity.cutProperties.isEmpty)
    }

    @Test func a_partial_update_keeps_the_stored_value_whole() throws {
        // Given a person whose notes are 5 MB
        let cache = try cacheWithHugeNotes()
        // When a $select response updates only the name
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Person(1)", entitySet: "Person", type: nil,
                properties: [.init(name: "name", value: .string("Anne"))],
                etag: nil, at: date, partial: true)
        }
        // Then the merge did not store the cut copy
        let entity = try #require(try cache.fullEntity(person))
        #expect(entity["notes"] == .string(huge))
        #expect(entity["name"] == .string("Anne"))
    }

    @Test func long_collections_and_complex_values_keep_their_first_members() throws {
        // Given a bag of 1,000 numbers, a complex value of 100 members and a short string
        let bag = ODataValue.collection((0..<1000).map { .int(Int64($0)) })
        let complex = ODataValue.complex((0..<100).map { .init(name: "m\($0)", value: .string("x")) })
        let bytes = PropertyCodec.encode([
            .init(name: "bag", value: bag), .init(name: "complex", value: complex),
            .init(name: "short", value: .string("ok")),
        ])
        // When they are decoded for display
        let bound = PropertyCodec.DisplayBound(textBytes: 16, elements: 10)
        let decoded = try #require(bytes.withUnsafeBytes { PropertyCodec.decode($0, bound: bound) })
        // Then each keeps its first ten members, the rest is skipped, and both are named as cut
        #expect(decoded.properties[0].value == .collection((0..<10).map { .int(Int64($0)) }))
        #expect(decoded.properties[1].value == .complex((0..<10).map { .init(name: "m\($0)", value: .string("x")) }))
        #expect(decoded.properties[2].value == .string("ok"))
        #expect(decoded.cut == ["bag", "complex"])
    }

    @Test func a_cut_never_splits_a_scalar() throws {
        // Given strings of multi-byte scalars
        for text in ["ééééé", "———", "👩🏽‍🚀👩🏽‍🚀"] {
            let bytes = PropertyCodec.encode([.init(name: "s", value: .string(text))])
            for limit in 1..<text.utf8.count {
                // When they are cut at every byte count
                let decoded = bytes.withUnsafeBytes {
                    PropertyCodec.decode($0, bound: PropertyCodec.DisplayBound(textBytes: limit, elements: 10))
                }
                // Then what is kept is a whole-scalar prefix, never a replacement character
                guard case .string(let cut)? = decoded?.properties.first?.value else {
                    Issue.record("no value at \(limit)")
                    continue
                }
                #expect(!cut.contains("\u{FFFD}"))
                #expect(text.unicodeScalars.starts(with: cut.dropLast().unicodeScalars))
                #expect(cut.dropLast().utf8.count <= limit)
            }
        }
    }
}
