/// Appends a message body piece by piece, for replies too large to build as one
/// `BusValue` first: an ObjectManager listing of ten thousand memos would otherwise make
/// hundreds of thousands of short-lived values, and the allocator keeps their pages.
///
/// The caller writes containers whose signatures it declares; libdbus checks each piece
/// against them, and a mismatch is a programming error, as with `Message.append`.
struct MessageBodyWriter: ~Copyable {
    fileprivate var iter: MessageIterator

    /// Appends one complete value.
    mutating func append(_ value: BusValue) {
        if let problem = value.marshallingProblem {
            preconditionFailure("cannot marshal \(value.signature): \(problem)")
        }
        Message.append(value, to: &iter)
    }

    /// Appends `value` as a variant, without boxing it in a `BusValue.variant` first.
    mutating func appendVariant(_ value: BusValue) {
        if let problem = value.marshallingProblem {
            preconditionFailure("cannot marshal \(value.signature): \(problem)")
        }
        iter.appendContainer(TypeCode.variant, value.signature) { sub in
            Message.append(value, to: &sub)
        }
    }

    /// Appends an array of `elementSignature` (e.g. `{sv}` for a dictionary), whose
    /// elements `body` writes.
    mutating func appendArray(of elementSignature: String, _ body: (inout MessageBodyWriter) -> Void) {
        appendContainer(TypeCode.array, elementSignature, body)
    }

    /// Appends one entry of the dictionary being written; `body` writes its key and value.
    mutating func appendDictionaryEntry(_ body: (inout MessageBodyWriter) -> Void) {
        appendContainer(TypeCode.dictEntry, nil, body)
    }

    private mutating func appendContainer(
        _ type: Int32, _ contained: String?, _ body: (inout MessageBodyWriter) -> Void
    ) {
        iter.appendContainer(type, contained) { sub in
            var writer = MessageBodyWriter(iter: sub)
            body(&writer)
            sub = writer.iter
        }
    }
}

extension Message {
    /// Appends to the body through a writer (see `MessageBodyWriter`).
    func appendBody(_ body: (inout MessageBodyWriter) -> Void) {
        var writer = MessageBodyWriter(iter: MessageIterator(appendingTo: self))
        body(&writer)
    }
}
