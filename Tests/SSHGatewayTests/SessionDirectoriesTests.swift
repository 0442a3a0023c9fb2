import Foundation
import Testing

@testable import SSHGateway

/// What a server killed outright leaves behind is removed by the next one, and nothing else is.
@Suite struct SessionDirectoriesTests {
    @Test func directories_of_a_server_whose_lock_nobody_holds_are_removed_and_no_others() throws {
        let root = NSTemporaryDirectory() + "session-dirs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manager = FileManager.default
        func make(_ name: String) throws {
            try manager.createDirectory(atPath: root + "/" + name + "/cache", withIntermediateDirectories: true)
            #expect(manager.createFile(atPath: root + "/" + name + "/cache/cache.sqlite", contents: Data([1, 2, 3])))
        }
        // Given a gone server's lock file (nobody holds it) and its sessions, a live server's claim (held here)
        // and its session, names of other shapes, and a link named like a gone server's session
        #expect(manager.createFile(atPath: root + "/cardealer-ssh-dead01.lock", contents: Data()))
        try make("cardealer-ssh-dead01-1-AbC123")
        try make("cardealer-ssh-dead01-2-XyZ789")
        let live = try SessionDirectories.claim(in: root)
        let liveSession = URL(fileURLWithPath: SessionDirectories.template(in: root, claim: live, number: 1))
            .lastPathComponent.replacingOccurrences(of: "XXXXXX", with: "Live01")
        try make(liveSession)
        try make("cardealer-ssh-7-Old001")  // an older naming, without a lock: unknown, left alone
        try make("keep-me")
        try manager.createSymbolicLink(
            atPath: root + "/cardealer-ssh-dead01-3-Linked", withDestinationPath: root + "/keep-me")

        // When the stale ones are removed
        let removed = SessionDirectories.removeStale(in: root)

        // Then exactly the gone server's session directories and its lock went
        #expect(removed == ["cardealer-ssh-dead01-1-AbC123", "cardealer-ssh-dead01-2-XyZ789"])
        let left = Set(try manager.contentsOfDirectory(atPath: root))
        #expect(
            left == [
                "cardealer-ssh-dead01-3-Linked", "cardealer-ssh-7-Old001", liveSession,
                "cardealer-ssh-\(live.token).lock", "keep-me",
            ], "\(left.sorted())")
        #expect(manager.fileExists(atPath: root + "/keep-me/cache/cache.sqlite"))
        // And a second pass removes nothing more (the live claim is still held)
        #expect(SessionDirectories.removeStale(in: root).isEmpty)
    }

    @Test func a_claim_is_held_from_the_moment_its_lock_file_has_its_name() throws {
        let root = NSTemporaryDirectory() + "session-claim-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let claim = try SessionDirectories.claim(in: root)
        #expect(
            SessionDirectories.template(in: "/tmp", claim: claim, number: 5)
                == "/tmp/cardealer-ssh-\(claim.token)-5-XXXXXX")
        // Another open file description cannot take the lock while the claim lives
        let other = open(root + "/cardealer-ssh-\(claim.token).lock", O_RDWR)
        defer { close(other) }
        #expect(other >= 0 && flock(other, LOCK_EX | LOCK_NB) != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["cardealer-ssh-\(claim.token).lock"])
    }
}
