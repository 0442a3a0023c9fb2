import Foundation
import Testing

@testable import ODataCore

/// The requests that carry writes, as values (issue 34): the same in a request of its own and inside a `$batch`.
@Suite struct WriteRequestTests {
    static let attempt = WriteRequestBuilder.Attempt(
        requestID: "id-1", firstSent: Date(timeIntervalSince1970: 784_111_777), etag: "W/\"7\"")

    static func builder(_ dialect: ODataDialect, tunnels: Bool = false) -> WriteRequestBuilder {
        WriteRequestBuilder(urls: ODataURLBuilder(serviceRoot: "http://h/S", dialect: dialect), tunnelsMerge: tunnels)
    }

    func key(_ canonical: String) -> EntityKey { EntityKey(canonical: canonical)! }

    static let change: [ODataProperty] = [.init(name: "cost", value: .decimal("12.50"))]

    @Test func an_update_is_a_merge_in_v2_a_tunnelled_post_where_merge_was_refused_and_a_patch_in_v4() {
        let merge = Self.builder(.v2).update(
            key("Car(1)"), changes: Self.change, types: ["cost": .decimal], attempt: Self.attempt)
        #expect(merge.method == .merge && merge.url == "http://h/S/Car(1)" && merge.headers["X-HTTP-Method"] == nil)
        #expect(String(decoding: merge.body ?? [], as: UTF8.self) == #"{"cost":"12.50"}"#)
        let tunnelled = Self.builder(.v2, tunnels: true).update(
            key("Car(1)"), changes: Self.change, attempt: Self.attempt)
        #expect(tunnelled.method == .post && tunnelled.headers["X-HTTP-Method"] == "MERGE")
        let patch = Self.builder(.v4, tunnels: true).update(
            key("Car(1)"), changes: Self.change, types: ["cost": .decimal], attempt: Self.attempt)
        #expect(patch.method == .patch && patch.headers["X-HTTP-Method"] == nil && patch.dialect == .v4)
        #expect(String(decoding: patch.body ?? [], as: UTF8.self) == #"{"cost":12.50}"#)
        for request in [merge, tunnelled, patch] {
            #expect(request.headers["If-Match"] == "W/\"7\"" && request.headers["Content-Type"] == "application/json")
            #expect(request.headers["Repeatability-Request-ID"] == "id-1")
            #expect(request.headers["Repeatability-First-Sent"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        }
    }

    @Test func a_delete_and_an_unlink_name_what_goes() {
        let delete = Self.builder(.v2).delete(key("Car(1)"), attempt: Self.attempt)
        #expect(delete.method == .delete && delete.url == "http://h/S/Car(1)" && delete.body == nil)
        let v2 = Self.builder(.v2).unlink(
            parent: key("Person(1)"), navigation: "Friends", child: key("Person(2)"), attempt: Self.attempt)
        #expect(v2.method == .delete && v2.url == "http://h/S/Person(1)/$links/Friends(2)")
        let v4 = Self.builder(.v4).unlink(
            parent: key("Person(1)"), navigation: "Friends", child: key("Person(2)"), attempt: Self.attempt)
        #expect(v4.url == "http://h/S/Person(1)/Friends/$ref?$id=http://h/S/Person(2)")
        let unversioned = WriteRequestBuilder.Attempt(requestID: "id-2", firstSent: Date(timeIntervalSince1970: 0))
        #expect(Self.builder(.v2).delete(key("Car(1)"), attempt: unversioned).headers["If-Match"] == nil)
    }

    @Test func a_create_leaves_out_nulls_and_binds_in_each_dialects_words() {
        let properties: [ODataProperty] = [
            .init(name: "personCarID", value: .null), .init(name: "since", value: .string("2020")),
        ]
        let path = ResourcePath(entitySet: "PersonCar")
        let v2 = Self.builder(.v2).create(
            at: path, properties: properties, bindings: [("Car", "$1")], attempt: Self.attempt)
        #expect(v2.method == .post && v2.url == "http://h/S/PersonCar")
        #expect(
            String(decoding: v2.body ?? [], as: UTF8.self) == #"{"since":"2020","Car":{"__metadata":{"uri":"$1"}}}"#)
        let v4 = Self.builder(.v4).create(
            at: path, properties: properties, bindings: [("Car", "http://h/S/Car(7)")], attempt: Self.attempt)
        #expect(
            String(decoding: v4.body ?? [], as: UTF8.self) == #"{"since":"2020","Car@odata.bind":"http://h/S/Car(7)"}"#)
    }
}
