import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// When a refresh or a settled create moves rows, the cursor stays on its entity, so that `e` or `x` right after
/// acts on the record the user was looking at (issue 32).
@MainActor
@Suite struct CursorFollowsEntityTests {
    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    @Test func a_row_arriving_above_the_cursor_in_a_stored_list_leaves_the_cursor_on_its_entity() async throws {
        let writes = RecordingWrites()
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 80, rows: 12), writes: writes)
        // Given the cursor on O'Neil, Renée, the second of three people
        _ = app.handle([.key(.char("j"))])
        #expect(terminal.lastFrame.last?.contains("2 of 3") == true, "\(frame(terminal))")
        // When a refresh brings a fourth person who sorts first
        let now = ScreenSnapshotTests.fixedNow
        try await cache.write { session in
            try session.upsertEntity(
                key: "Person(4)", entitySet: "Person", type: nil,
                properties: [
                    .init(name: "personID", value: .int(4)), .init(name: "firstName", value: .string("Ada")),
                    .init(name: "lastName", value: .string("Aalto")),
                ], etag: nil, at: now, partial: false)
            try session.writeListPage(
                ListRequest(entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
                    .key, offset: 0, entityKeys: ["Person(4)", "Person(2)", "Person(3)", "Person(1)"], totalCount: 4,
                nextLink: nil, isLastPage: true, at: now)
        }
        // Then the cursor is still on O'Neil, now the third row
        let followed = try await eventually {
            _ = app.handle([])
            return terminal.lastFrame.last?.contains("3 of 4") == true
        }
        #expect(followed, "\(frame(terminal))")
        // And e changes O'Neil, not whoever took the cursor's old place
        _ = app.handle([.key(.char("e"))])
        #expect(frame(terminal).contains("O'Neil") && !frame(terminal).contains("Aalto"), "\(frame(terminal))")
    }

    @Test func a_car_sorted_above_the_cursor_in_a_persons_cars_leaves_the_cursor_on_its_car() async throws {
        let writes = RecordingWrites()
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 80, rows: 12), writes: writes)
        // Given Samson, Bob's cars, the cursor on the Ford Mustang (second, after the Explorer)
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter), .key(.char("j"))])
        #expect(terminal.lastFrame.last?.contains("2 of 2") == true, "\(frame(terminal))")
        // When a refresh brings a third car that sorts first (an Audi)
        let now = ScreenSnapshotTests.fixedNow
        try await cache.write { session in
            try session.upsertEntity(
                key: "PersonCar(8)", entitySet: "PersonCar", type: nil,
                properties: [.init(name: "personCarID", value: .int(8))], etag: nil, at: now,
                partial: false)
            try session.upsertEntity(
                key: "Car(9)", entitySet: "Car", type: nil,
                properties: [
                    .init(name: "carID", value: .int(9)), .init(name: "make", value: .string("Audi")),
                    .init(name: "model", value: .string("A4")),
                ], etag: nil, at: now, partial: false)
            try session.replaceRelation(
                parent: "PersonCar(8)", navigation: "Car", children: ["Car(9)"], at: now)
            try session.replaceRelation(
                parent: "Person(1)", navigation: "PersonCar",
                children: ["PersonCar(1)", "PersonCar(2)", "PersonCar(8)"],
                at: now)
        }
        // Then the cursor stays on the Mustang, now the third of three
        let followed = try await eventually {
            _ = app.handle([])
            return terminal.lastFrame.last?.contains("3 of 3") == true
        }
        #expect(followed, "\(frame(terminal))")
        // And x asks about the Mustang
        _ = app.handle([.key(.char("x"))])
        #expect(frame(terminal).contains("no longer has “Ford Mustang”"), "\(frame(terminal))")
    }
}
