/// A parsed JSON document as a flat tape of nodes over the document's bytes.
///
/// This is the one JSON tokenizer of the project. Parsing allocates nothing per value:
/// each node records its kind and the byte range it spans, and containers record where
/// their subtree ends so that siblings can be skipped in O(1). Strings are created only
/// when a value is read (``string(_:)``), and keys are compared as bytes. ``JSONReader``
/// materialises a tape into ``JSONValue``s for callers that want a tree.
struct JSONTape {
    enum Kind: UInt8 {
        case null, `true`, `false`, number, string, array, object
    }

    /// One value. For strings, `start..<end` is inside the quotes; for containers, `count`
    /// is the number of members or elements and `next` the index after the subtree.
    /// Object members are stored as a string node (the key) followed by the value.
    struct Node {
        var kind: Kind
        /// Strings only: the text contains backslash escapes.
        var escaped: Bool
        var start: UInt32
        var end: UInt32
        var count: UInt32
        var next: UInt32
    }

    let bytes: [UInt8]
    private(set) var nodes: [Node]

    /// Parses `bytes`; the root is node 0.
    init(_ bytes: [UInt8], maximumDepth: Int) throws(JSONSyntaxError) {
        guard bytes.count < Int(UInt32.max) else {
            throw JSONSyntaxError(offset: 0, reason: "the document is larger than 4 GB")
        }
        self.bytes = bytes
        var builder = TapeBuilder(maximumDepth: maximumDepth)
        builder.nodes.reserveCapacity(max(16, bytes.count / 12))
        try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            try builder.parseDocument(buffer)
        }
        nodes = builder.nodes
    }

    subscript(index: Int) -> Node { nodes[index] }

    /// The index after node `index` and everything inside it.
    @inline(__always) func after(_ index: Int) -> Int {
        let node = nodes[index]
        return node.kind == .array || node.kind == .object ? Int(node.next) : index + 1
    }

    /// The first child of a container (a key for objects), or its `after` when empty.
    @inline(__always) func firstChild(_ index: Int) -> Int { index + 1 }

    /// The value node of member `name` in object `object`, if present.
    func member(_ object: Int, _ name: StaticString) -> Int? {
        var child = firstChild(object)
        for _ in 0..<nodes[object].count {
            if keyEquals(child, name) { return child + 1 }
            child = after(child + 1)
        }
        return nil
    }

    /// The value node of member `name` in object `object`, if present (a name known only at run time).
    func member(_ object: Int, named name: String) -> Int? {
        var child = firstChild(object)
        for _ in 0..<nodes[object].count {
            if string(child) == name { return child + 1 }
            child = after(child + 1)
        }
        return nil
    }

    /// Whether string node `index` holds an `@` (a v4 annotation: `@odata.etag`, `Items@odata.count`).
    func isAnnotationKey(_ index: Int) -> Bool {
        let node = nodes[index]
        var offset = Int(node.start)
        let end = Int(node.end)
        while offset < end {
            if bytes[offset] == UInt8(ascii: "@") { return true }
            offset += 1
        }
        return false
    }

    /// Whether annotation key `index` may say something of a stream (`@odata.media…`, `photo@media…`): a test of a
    /// few bytes, so that the annotations every entity carries (`@odata.etag`) are passed over without building text.
    func mayBeMediaAnnotation(_ index: Int) -> Bool {
        let node = nodes[index]
        if node.escaped { return true }
        let end = Int(node.end)
        var offset = Int(node.start)
        while offset < end, bytes[offset] != UInt8(ascii: "@") { offset += 1 }
        offset += 1
        if end - offset > 6, bytes[offset] == UInt8(ascii: "o"), bytes[offset + 5] == UInt8(ascii: ".") { offset += 6 }
        return end - offset > 5 && bytes[offset] == UInt8(ascii: "m") && bytes[offset + 1] == UInt8(ascii: "e")
            && bytes[offset + 2] == UInt8(ascii: "d") && bytes[offset + 3] == UInt8(ascii: "i")
            && bytes[offset + 4] == UInt8(ascii: "a")
    }

    /// Whether string node `index` spells exactly `text` (escaped keys are decoded first).
    func keyEquals(_ index: Int, _ text: StaticString) -> Bool {
        let node = nodes[index]
        if node.escaped { return string(index) == text.description }
        let length = Int(node.end - node.start)
        guard length == text.utf8CodeUnitCount else { return false }
        let start = Int(node.start)
        let pointer = text.utf8Start
        for offset in 0..<length where bytes[start + offset] != pointer[offset] { return false }
        return true
    }

    /// Whether string node `index` starts with `__` (OData's reserved members).
    func isReservedKey(_ index: Int) -> Bool {
        let node = nodes[index]
        return node.end - node.start >= 2 && bytes[Int(node.start)] == 0x5F && bytes[Int(node.start) + 1] == 0x5F
    }

    /// The text of a string node (keys included) or the source text of a number node.
    func string(_ index: Int) -> String {
        let node = nodes[index]
        let range = Int(node.start)..<Int(node.end)
        guard node.escaped else {
            return bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self)
            }
        }
        return JSONEscapes.unescape(bytes[range])
    }

    /// A short name of a node's kind, for error messages.
    func kindName(_ index: Int) -> String {
        switch nodes[index].kind {
        case .null: "null"
        case .true, .false: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
