import Foundation

/// What a service answered to an ``ODataBatch``: for every changeset, an answer to each of its requests, or one
/// answer for the whole changeset when the service refused it as a unit (SAP Gateway and OData both answer a failed
/// changeset with the one error that stopped it).
public enum ChangesetAnswer: Sendable, Hashable {
    /// One answer per request, in the changeset's order.
    case each([TransportResponse])
    /// The changeset was refused as a unit (nothing in it was applied): the answer of the request that stopped it.
    case whole(TransportResponse)

    /// The answer to the request at `index` of the changeset, as if that request had been sent alone.
    public func answer(at index: Int) -> TransportResponse? {
        switch self {
        case .each(let answers): index < answers.count ? answers[index] : nil
        case .whole(let answer): answer
        }
    }
}

extension ODataBatch {
    /// Reads the answer to this batch (sent in `format`): one ``ChangesetAnswer`` per changeset, in order.
    ///
    /// Throws an `ODataError` of kind `.refused` with a sentence when the answer is not a batch answer that fits
    /// this batch: a status other than 200/202 (the batch itself refused: its own error), no or a wrong boundary,
    /// fewer or more parts than changesets, a changeset answered with more answers than it had requests, answers
    /// named by a `Content-ID` that names no request, nesting deeper than a changeset, or malformed JSON.
    public func decode(
        _ response: TransportResponse, format: Format, url: String
    ) throws(ODataError)
        -> [ChangesetAnswer]
    {
        func refuse(_ reason: String) -> ODataError {
            ODataError(kind: .refused, message: "the service's answer to the batch is not usable: " + reason, url: url)
        }
        if (200..<300).contains(response.status), response.status != 200, response.status != 202 {
            throw refuse("it is an HTTP \(response.status), which holds no answers")
        }
        guard response.status == 200 || response.status == 202 else {
            throw ODataError.fromResponse(
                status: response.status, url: url, contentType: response.headers["content-type"], body: response.body)
        }
        let contentType = response.headers["content-type"] ?? ""
        if contentType.lowercased().hasPrefix("application/json") || (format == .json && contentType.isEmpty) {
            return try decodeJSON(response.body, refuse: refuse)
        }
        guard let boundary = Multipart.boundary(of: contentType) else {
            throw refuse("it is not multipart/mixed with a boundary (Content-Type: \(Self.shown(contentType)))")
        }
        let parts: [Multipart.Part]
        do {
            parts = try Multipart.parts(of: response.body[...], boundary: boundary)
        } catch {
            throw refuse(error.reason)
        }
        guard parts.count == changesets.count else {
            throw refuse("it holds \(parts.count) answers for \(changesets.count) changesets")
        }
        var answers: [ChangesetAnswer] = []
        for (changeset, part) in zip(changesets, parts) {
            let type = part.headers["content-type"] ?? ""
            if let inner = Multipart.boundary(of: type), type.lowercased().hasPrefix("multipart/") {
                let innerParts: [Multipart.Part]
                do {
                    innerParts = try Multipart.parts(of: part.body, boundary: inner)
                } catch {
                    throw refuse(error.reason)
                }
                var responses: [TransportResponse?] = Array(repeating: nil, count: changeset.count)
                guard innerParts.count == changeset.count else {
                    if innerParts.count == 1, let only = try? Multipart.response(in: innerParts[0].body),
                        !(200..<300).contains(only.status)
                    {
                        answers.append(.whole(only))  // a changeset refused as a unit, wrapped in a changeset
                        continue
                    }
                    throw refuse("a changeset of \(changeset.count) came back with \(innerParts.count) answers")
                }
                for (position, innerPart) in innerParts.enumerated() {
                    if let type = innerPart.headers["content-type"], type.lowercased().hasPrefix("multipart/") {
                        throw refuse("a changeset's answer is nested deeper than a changeset")
                    }
                    let answer: TransportResponse
                    do {
                        answer = try Multipart.response(in: innerPart.body)
                    } catch {
                        throw refuse(error.reason)
                    }
                    // Matched by Content-ID where the service echoes it, else by position.
                    var index = position
                    if let id = innerPart.headers["content-id"] {
                        guard let named = changeset.firstIndex(where: { $0.contentID == id }) else {
                            throw refuse("an answer names Content-ID \(Self.shown(id)), which no request had")
                        }
                        index = named
                    }
                    guard responses[index] == nil else { throw refuse("two answers for one request") }
                    responses[index] = answer
                }
                answers.append(.each(responses.map { $0! }))
            } else {
                let answer: TransportResponse
                do {
                    answer = try Multipart.response(in: part.body)
                } catch {
                    throw refuse(error.reason)
                }
                answers.append(
                    changeset.count == 1 && (200..<300).contains(answer.status) ? .each([answer]) : .whole(answer))
            }
        }
        return answers
    }

    private func decodeJSON(_ body: [UInt8], refuse: (String) -> ODataError) throws(ODataError) -> [ChangesetAnswer] {
        let document: JSONValue
        do {
            document = try JSONReader(maximumDepth: 64).read(body)
        } catch {
            throw refuse(error.description)
        }
        guard case .array(let entries)? = document["responses"] else {
            throw refuse(#"it holds no "responses" array"#)
        }
        var places: [String: (changeset: Int, index: Int)] = [:]
        for (number, changeset) in changesets.enumerated() {
            for (index, item) in changeset.enumerated() { places[item.contentID] = (number, index) }
        }
        var found: [[TransportResponse?]] = changesets.map { Array(repeating: nil, count: $0.count) }
        var wholes: [Int: TransportResponse] = [:]
        for (position, entry) in entries.enumerated() {
            guard case .object(let object) = entry, case .number(let statusText)? = object["status"],
                let status = Int(statusText), (100...599).contains(status)
            else { throw refuse("answer \(position + 1) has no status") }
            let (headers, bytes) = ODataBatch.jsonPart(object)
            let answer = TransportResponse(status: status, headers: headers, body: bytes)
            guard case .string(let id)? = object["id"], let place = places[id] else {
                if case .string(let id)? = object["id"] {
                    throw refuse("an answer names id \(Self.shown(id)), which no request had")
                }
                throw refuse("answer \(position + 1) names no request")
            }
            guard found[place.changeset][place.index] == nil, wholes[place.changeset] == nil else {
                throw refuse("two answers for one request")
            }
            found[place.changeset][place.index] = answer
            if !(200..<300).contains(status), changesets[place.changeset].count > 1 { wholes[place.changeset] = answer }
        }
        var answers: [ChangesetAnswer] = []
        for (number, responses) in found.enumerated() {
            if let whole = wholes[number] {
                answers.append(.whole(whole))
            } else if responses.allSatisfy({ $0 != nil }) {
                answers.append(.each(responses.map { $0! }))
            } else {
                throw refuse(
                    "request \(changesets[number][responses.firstIndex(where: { $0 == nil })!].contentID) got no answer"
                )
            }
        }
        return answers
    }

    /// The headers (names lower-cased) and body of a JSON batch's request or answer: a body is a JSON value, written
    /// out as JSON text, or a string taken as it is where its content type is not JSON.
    public static func jsonPart(_ object: JSONObject) -> (headers: [String: String], body: [UInt8]) {
        var headers: [String: String] = [:]
        if case .object(let given)? = object["headers"] {
            for member in given.members {
                if case .string(let value) = member.value { headers[member.key.lowercased()] = value }
            }
        }
        switch object["body"] {
        case nil, .null?:
            return (headers, [])
        case .string(let text)? where !(headers["content-type"] ?? "").lowercased().contains("json"):
            return (headers, Array(text.utf8))
        case let value?:
            if headers["content-type"] == nil { headers["content-type"] = "application/json" }
            return (headers, Array(value.jsonText.utf8))
        }
    }

    /// Server text inside a sentence: printable, and short.
    static func shown(_ text: String) -> String {
        let printable = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        return printable.count > 80 ? String(printable.prefix(80)) + "…" : printable
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    public var jsonText: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let text): text
        case .string(let text): RequestBodyEncoder.string(text)
        case .array(let values): "[" + values.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let object):
            "{"
                + object.members.map { RequestBodyEncoder.string($0.key) + ":" + $0.value.jsonText }
                .joined(separator: ",") + "}"
        }
    }
}
