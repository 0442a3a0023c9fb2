import Foundation

/// Reads `multipart/mixed` bodies (RFC 2046) and the `application/http` messages inside them, as `$batch` answers
/// hold them. Tolerant of what servers send (LF for CRLF, a preamble, no closing delimiter after the last part);
/// bounded for what a hostile one could (parts and header lines are counted).
public enum Multipart {
    public struct Part: Sendable {
        /// Names lower-cased.
        public var headers: [String: String]
        public var body: ArraySlice<UInt8>
    }

    public struct Malformed: Error, Sendable {
        public var reason: String
    }

    /// Most parts read from one body, and header lines from one part.
    static let maximumParts = 10_000
    static let maximumHeaderLines = 200

    /// The `boundary` parameter of a `multipart/…` content type (quoted or not).
    public static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty || value.utf8.count > 200 ? nil : value
        }
        return nil
    }

    /// The parts between `--boundary` delimiters, each with its headers and body.
    public static func parts(of body: ArraySlice<UInt8>, boundary: String) throws(Malformed) -> [Part] {
        let delimiter = Array(("--" + boundary).utf8)
        var starts: [(start: Int, end: Int)] = []  // where each delimiter line begins, and where its line ends
        var index = body.startIndex
        var closed = false
        while let found = find(delimiter, in: body, from: index) {
            // A delimiter begins a line.
            guard found == body.startIndex || body[found - 1] == 10 else {
                index = found + delimiter.count
                continue
            }
            var after = found + delimiter.count
            let closing = after + 1 < body.endIndex && body[after] == 45 && body[after + 1] == 45
            if closing { after += 2 }
            while after < body.endIndex, body[after] != 10 { after += 1 }
            starts.append((found, min(after + 1, body.endIndex)))
            if closing {
                closed = true
                break
            }
            guard starts.count <= maximumParts else {
                throw Malformed(reason: "it holds more than \(maximumParts) parts")
            }
            index = after
        }
        guard !starts.isEmpty else { throw Malformed(reason: "no part begins with its boundary") }
        var parts: [Part] = []
        let count = closed ? starts.count - 1 : starts.count
        for number in 0..<count {
            let from = starts[number].end
            var to = number + 1 < starts.count ? starts[number + 1].start : body.endIndex
            // The line break before a delimiter belongs to the delimiter.
            if to > from, body[to - 1] == 10 { to -= 1 }
            if to > from, body[to - 1] == 13 { to -= 1 }
            parts.append(try part(body[from..<max(from, to)]))
        }
        return parts
    }

    /// Headers up to the first empty line, then the body.
    static func part(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> Part {
        var headers: [String: String] = [:]
        var index = bytes.startIndex
        var lines = 0
        while index < bytes.endIndex {
            var end = index
            while end < bytes.endIndex, bytes[end] != 10 { end += 1 }
            var line = bytes[index..<end]
            if line.last == 13 { line = line.dropLast() }
            index = min(end + 1, bytes.endIndex)
            if line.isEmpty { return Part(headers: headers, body: bytes[index...]) }
            lines += 1
            guard lines <= maximumHeaderLines else { throw Malformed(reason: "a part has too many header lines") }
            guard let colon = line.firstIndex(of: 58) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            headers[name] = value
        }
        return Part(headers: headers, body: bytes[bytes.endIndex...])
    }

    /// An `application/http` response: `HTTP/1.1 201 Created`, its headers, then the body (as long as its
    /// `Content-Length` says when it says, else the rest).
    public static func response(in bytes: ArraySlice<UInt8>) throws(Malformed) -> TransportResponse {
        var start = bytes.startIndex
        while start < bytes.endIndex, bytes[start] == 13 || bytes[start] == 10 { start += 1 }
        var end = start
        while end < bytes.endIndex, bytes[end] != 10 { end += 1 }
        let statusLine = String(decoding: bytes[start..<end], as: UTF8.self)
        let words = statusLine.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let status = Int(words[1]), (100...599).contains(status)
        else {
            throw Malformed(reason: "a part is not an HTTP answer (\(ODataBatch.shown(statusLine)))")
        }
        let rest = try part(bytes[min(end + 1, bytes.endIndex)...])
        var body = rest.body
        if let length = rest.headers["content-length"].flatMap({ Int($0) }), length >= 0, length <= body.count {
            body = body.prefix(length)
        }
        return TransportResponse(status: status, headers: rest.headers, body: Array(body))
    }

    /// An `application/http` request: `MERGE Car(1) HTTP/1.1`, its headers, then the body (as long as its
    /// `Content-Length` says when it says, else the rest).
    public static func request(
        in bytes: ArraySlice<UInt8>
    ) throws(Malformed) -> (
        method: String, target: String, headers: [String: String], body: [UInt8]
    ) {
        var start = bytes.startIndex
        while start < bytes.endIndex, bytes[start] == 13 || bytes[start] == 10 { start += 1 }
        var end = start
        while end < bytes.endIndex, bytes[end] != 10 { end += 1 }
        let requestLine = String(decoding: bytes[start..<end], as: UTF8.self)
        let words = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 3, words[2].hasPrefix("HTTP/"), words[0].allSatisfy({ $0.isLetter && $0.isASCII }) else {
            throw Malformed(reason: "a part is not an HTTP request (\(ODataBatch.shown(requestLine)))")
        }
        let rest = try part(bytes[min(end + 1, bytes.endIndex)...])
        var body = rest.body
        if let length = rest.headers["content-length"].flatMap({ Int($0) }), length >= 0, length <= body.count {
            body = body.prefix(length)
        }
        return (words[0].uppercased(), String(words[1]), rest.headers, Array(body))
    }

    static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>, from: Int) -> Int? {
        guard let first = needle.first, needle.count <= haystack.endIndex - from else { return nil }
        var index = from
        let last = haystack.endIndex - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
