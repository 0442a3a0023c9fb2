import ODataCore
import Testing

/// Who edits a draft and since when, as SAP's `DraftAdministrativeData` says it (issue 36): the one who has it open,
/// else who made it; whether that is the one signed in; nothing made up where it says nothing.
@Suite struct DraftAdministrationTests {
    let since = ODataValue.dateTimeOffset(ODataInstant(millisecondsSince1970: 1_764_000_060_000, offsetMinutes: 0))

    @Test func the_one_who_has_it_open_comes_before_the_one_who_made_it() throws {
        let read = try #require(
            DraftAdministration([
                .init(name: "CreatedByUser", value: .string("BOB")),
                .init(name: "InProcessByUser", value: .string("ALICE")),
                .init(name: "DraftIsProcessedByMe", value: .bool(false)),
                .init(name: "DraftIsCreatedByMe", value: .bool(true)),
                .init(name: "CreationDateTime", value: since),
            ]))
        #expect(read.user == "ALICE" && read.isOpen && !read.isMine && read.since == since)
        // (nobody has it open: its maker, and whether that is me)
        let left = try #require(
            DraftAdministration([
                .init(name: "CreatedByUser", value: .string("BOB")), .init(name: "InProcessByUser", value: .string("")),
                .init(name: "DraftIsCreatedByMe", value: .bool(true)),
                .init(name: "DraftIsProcessedByMe", value: .bool(false)),
            ]))
        // (whether it is mine goes with who is named: its maker's flag, not the one for who has it open)
        #expect(left.user == "BOB" && !left.isOpen && left.isMine && left.since == nil)
    }

    @Test func values_that_say_nothing_of_who_or_when_are_no_administration() {
        #expect(DraftAdministration([]) == nil)
        #expect(
            DraftAdministration([
                .init(name: "InProcessByUser", value: .null), .init(name: "DraftUUID", value: .guid("x")),
            ]) == nil)
    }
}
