import Crypto
import Foundation
import NIOSSH

#if canImport(Glibc)
import Glibc
#endif

/// The gateway's Ed25519 host key in OpenSSH's own file format, so that `ssh-keygen -l -f` reads it and a key made
/// by `ssh-keygen -t ed25519` can be brought with `--host-key`.
///
/// Generated on first start with mode 0600 and reused on every start after, so that clients never see the server's
/// key change. Only unencrypted Ed25519 keys are read: a host key has to open without a person present.
public struct HostKeyFile: Sendable {
    /// The private key.
    public let key: Curve25519.Signing.PrivateKey

    public init(key: Curve25519.Signing.PrivateKey) { self.key = key }

    /// The key for swift-nio-ssh.
    public var sshKey: NIOSSHPrivateKey { NIOSSHPrivateKey(ed25519Key: key) }

    /// `ssh-ed25519 AAAA…`, as a known_hosts or authorized_keys line has it.
    public var publicKeyLine: String { "ssh-ed25519 " + Data(Self.publicBlob(key.publicKey)).base64EncodedString() }

    /// `SHA256:…`, as `ssh` shows it when it first meets the server and `ssh-keygen -l` prints it.
    public var fingerprint: String {
        let digest = Data(SHA256.hash(data: Self.publicBlob(key.publicKey))).base64EncodedString()
        return "SHA256:" + digest.replacingOccurrences(of: "=", with: "")
    }

    /// Reads the key at `path`, or makes one there (mode 0600, in a 0700 directory) when there is no file.
    /// - Returns: the key and whether it was generated now.
    public static func loadOrCreate(at path: String) throws -> (HostKeyFile, generated: Bool) {
        if FileManager.default.fileExists(atPath: path) { return (try load(from: path), false) }
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = HostKeyFile(key: Curve25519.Signing.PrivateKey())
        let text = file.openSSHText(comment: "cardealer serve-ssh host key")
        // O_EXCL: two servers starting at once must not write two keys over each other.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return (try load(from: path), false) }
            throw HostKeyError("Could not create the host key \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count, fsync(descriptor) == 0 else {
            unlink(path)
            throw HostKeyError("Could not write the host key \(path): \(String(cString: strerror(errno))).")
        }
        return (file, true)
    }

    /// Reads an unencrypted OpenSSH Ed25519 private key; refuses one that others may read, as `sshd` does.
    public static func load(from path: String) throws -> HostKeyFile {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw HostKeyError("Could not read the host key \(path): \(String(cString: strerror(errno))).")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw HostKeyError(
                "The host key \(path) may be read by others (mode \(String(status.st_mode & 0o777, radix: 8))); "
                    + "run chmod 600 on it.")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw HostKeyError("Could not read the host key \(path) as text.")
        }
        return try parse(text, source: path)
    }

    static let beginMarker = "-----BEGIN OPENSSH PRIVATE KEY-----"
    static let endMarker = "-----END OPENSSH PRIVATE KEY-----"
    static let magic = Array("openssh-key-v1".utf8) + [0]

    /// Parses the armoured `openssh-key-v1` text.
    public static func parse(_ text: String, source: String = "the host key") throws -> HostKeyFile {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: beginMarker), let end = lines.firstIndex(of: endMarker), begin < end
        else {
            throw HostKeyError(
                "\(source) is not an OpenSSH private key (make one with: ssh-keygen -t ed25519 -N '' -f FILE).")
        }
        guard let data = Data(base64Encoded: lines[(begin + 1)..<end].joined()) else {
            throw HostKeyError("\(source) is not valid base64 between its BEGIN and END lines.")
        }
        var reader = SSHWireReader(Array(data))
        guard reader.take(magic.count) == magic, let cipher = reader.string(), let kdf = reader.string(),
            reader.bytes() != nil, let count = reader.uint32()
        else { throw HostKeyError("\(source) is not an openssh-key-v1 file.") }
        guard String(decoding: cipher, as: UTF8.self) == "none", String(decoding: kdf, as: UTF8.self) == "none"
        else {
            throw HostKeyError(
                "\(source) is encrypted; a host key must open unattended (ssh-keygen -p -N '' -f FILE removes the "
                    + "passphrase).")
        }
        guard count == 1, reader.bytes() != nil, let privateSection = reader.bytes() else {
            throw HostKeyError("\(source) must hold exactly one key.")
        }
        var section = SSHWireReader(privateSection)
        guard let check1 = section.uint32(), let check2 = section.uint32(), check1 == check2 else {
            throw HostKeyError("\(source) is damaged (its check numbers differ).")
        }
        guard let type = section.string(), String(decoding: type, as: UTF8.self) == "ssh-ed25519" else {
            throw HostKeyError("\(source) is not an Ed25519 key; the gateway serves Ed25519 host keys only.")
        }
        guard let publicKey = section.bytes(), publicKey.count == 32, let secret = section.bytes(), secret.count == 64,
            Array(secret[32...]) == publicKey
        else { throw HostKeyError("\(source) is damaged (its Ed25519 key has the wrong size).") }
        do {
            let key = try Curve25519.Signing.PrivateKey(rawRepresentation: secret[0..<32])
            guard Array(key.publicKey.rawRepresentation) == publicKey else {
                throw HostKeyError("\(source) is damaged (its public half does not match its private half).")
            }
            return HostKeyFile(key: key)
        } catch let error as HostKeyError {
            throw error
        } catch {
            throw HostKeyError("\(source) holds an Ed25519 key that does not load: \(error).")
        }
    }

    /// The armoured `openssh-key-v1` text of this key.
    public func openSSHText(comment: String) -> String {
        let publicKey = Array(key.publicKey.rawRepresentation)
        var section = SSHWireWriter()
        let check = UInt32.random(in: 0...UInt32.max)
        section.uint32(check)
        section.uint32(check)
        section.string("ssh-ed25519")
        section.bytes(publicKey)
        section.bytes(Array(key.rawRepresentation) + publicKey)
        section.string(comment)
        var pad: UInt8 = 1
        while section.output.count % 8 != 0 {
            section.output.append(pad)
            pad += 1
        }
        var file = SSHWireWriter()
        file.output = Self.magic
        file.string("none")
        file.string("none")
        file.bytes([])
        file.uint32(1)
        file.bytes(Self.publicBlob(key.publicKey))
        file.bytes(section.output)
        let encoded = Data(file.output).base64EncodedString()
        var body = ""
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let next = encoded.index(index, offsetBy: 70, limitedBy: encoded.endIndex) ?? encoded.endIndex
            body += encoded[index..<next] + "\n"
            index = next
        }
        return Self.beginMarker + "\n" + body + Self.endMarker + "\n"
    }

    /// The public key's wire form: string "ssh-ed25519", string key.
    static func publicBlob(_ key: Curve25519.Signing.PublicKey) -> [UInt8] {
        var writer = SSHWireWriter()
        writer.string("ssh-ed25519")
        writer.bytes(Array(key.rawRepresentation))
        return writer.output
    }
}

/// A host key or authorized-keys file that cannot be used, in a sentence.
public struct HostKeyError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The public keys allowed to log in, read from an OpenSSH `authorized_keys` file.
public struct AuthorizedKeys: Sendable {
    public let keys: Set<NIOSSHPublicKey>
    /// Lines skipped, each with its number and why (RSA keys, lines with options, unreadable keys).
    public let skipped: [String]

    /// Reads `path`; throws when no key in it can be used.
    public static func load(from path: String) throws -> AuthorizedKeys {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw HostKeyError("Could not read the authorized keys file \(path).")
        }
        let parsed = parse(text)
        guard !parsed.keys.isEmpty else {
            throw HostKeyError(
                "\(path) holds no usable key (Ed25519 or ECDSA)"
                    + (parsed.skipped.isEmpty ? "." : ": " + parsed.skipped.joined(separator: "; ")))
        }
        return parsed
    }

    static let supportedTypes: Set<String> = [
        "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
    ]

    /// Keys from the text of an `authorized_keys` file. A line with options (`from=`, `command=`, `restrict`…) is
    /// skipped rather than honoured in part: a key meant to be restricted must not get in unrestricted.
    public static func parse(_ text: String) -> AuthorizedKeys {
        var keys = Set<NIOSSHPublicKey>()
        var skipped: [String] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let type = String(fields[0])
            guard supportedTypes.contains(type) else {
                if type == "ssh-rsa" || type.hasPrefix("rsa-") || type == "ssh-dss" {
                    skipped.append("line \(number + 1): \(type) keys are not supported; use Ed25519 or ECDSA")
                } else {
                    skipped.append("line \(number + 1): options or an unknown key type are not supported")
                }
                continue
            }
            guard fields.count >= 2, let key = try? NIOSSHPublicKey(openSSHPublicKey: "\(type) \(fields[1])") else {
                skipped.append("line \(number + 1): the key does not decode")
                continue
            }
            keys.insert(key)
        }
        return AuthorizedKeys(keys: keys, skipped: skipped)
    }
}

/// Reads SSH wire types: uint32 and length-prefixed strings.
struct SSHWireReader {
    private let input: [UInt8]
    private var offset = 0
    init(_ input: [UInt8]) { self.input = input }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, input.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(input[offset..<(offset + count)])
    }

    mutating func uint32() -> UInt32? {
        guard let four = take(4) else { return nil }
        return four.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func bytes() -> [UInt8]? {
        guard let length = uint32(), length <= 1 << 20 else { return nil }
        return take(Int(length))
    }

    mutating func string() -> [UInt8]? { bytes() }
}

/// Writes SSH wire types.
struct SSHWireWriter {
    var output: [UInt8] = []

    mutating func uint32(_ value: UInt32) {
        output += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    mutating func bytes(_ value: [UInt8]) {
        uint32(UInt32(value.count))
        output += value
    }

    mutating func string(_ value: String) { bytes(Array(value.utf8)) }
}
