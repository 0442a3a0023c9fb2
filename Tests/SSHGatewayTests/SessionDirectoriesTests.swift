import Foundation
import Testing

@testable import SSHGateway

/// What a server killed outright leaves behind is removed by the next one, and nothing else is.
@Suite struct SessionDirectoriesTests {
    @Test func directories_of_a_server_that_is_gone_are_removed_and_no_others() throws {
        let root = NSTemporaryDirectory() + "session-dirs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manager = FileManager.default
        func make(_ name: String) throws {
            try manager.createDirectory(atPath: root + "/" + name + "/cache", withIntermediateDirectories: true)
            manager.createFile(atPath: root + "/" + name + "/cache/cache.sqlite", contents: Data([1, 2, 3]))
        }
        // Given sessions of a dead server (4242), of a live one (this test's own process), names of another
        // shape, and a link named like a dead server's session pointing at something that must survive
        let live = getpid()
        try make("cardealer-ssh-4242-1-AbC123")
        try make("cardealer-ssh-4242-2-XyZ789")
        try make("cardealer-ssh-\(live)-1-Live01")
        try make("cardealer-ssh-7-Old001")  // the old naming, without the server: unknown, left alone
        try make("cardealer-ssh-4242-x-NotNum")
        try make("keep-me")
        try manager.createSymbolicLink(
            atPath: root + "/cardealer-ssh-4242-3-Linked", withDestinationPath: root + "/keep-me")

        // When the stale ones are removed, 4242 being gone
        let removed = SessionDirectories.removeStale(in: root) { $0 == live }

        // Then exactly the dead server's session directories went
        #expect(removed == ["cardealer-ssh-4242-1-AbC123", "cardealer-ssh-4242-2-XyZ789"])
        let left = try manager.contentsOfDirectory(atPath: root).sorted()
        #expect(
            left
                == [
                    "cardealer-ssh-4242-3-Linked", "cardealer-ssh-4242-x-NotNum", "cardealer-ssh-7-Old001",
                    "cardealer-ssh-\(live)-1-Live01", "keep-me",
                ].sorted())
        #expect(manager.fileExists(atPath: root + "/keep-me/cache/cache.sqlite"))
    }

    @Test func a_template_names_the_server_and_the_session() {
        let template = SessionDirectories.template(in: "/tmp", server: 99, number: 5)
        #expect(template == "/tmp/cardealer-ssh-99-5-XXXXXX")
        // And the live-process check sees this process and not a pid that cannot exist
        #expect(SessionDirectories.processIsAlive(getpid()))
        #expect(!SessionDirectories.processIsAlive(Int32.max))
    }
}
