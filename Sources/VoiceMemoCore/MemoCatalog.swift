/// The memos in the directory, by id: the library's rules for keeping its view of the
/// directory (the source of truth) current without re-reading files that did not change.
public struct MemoCatalog: Sendable {
    public private(set) var memos: [String: MemoInfo] = [:]

    public init(_ memos: [MemoInfo] = []) {
        for memo in memos { self.memos[memo.id] = memo }
    }

    /// What a new listing of the directory changes.
    public struct Changes: Equatable, Sendable {
        /// Files to read and add (new, or changed since they were read).
        public var toRead: [MemoFileStatus] = []
        /// Ids whose file is gone.
        public var removed: [String] = []

        public init(toRead: [MemoFileStatus] = [], removed: [String] = []) {
            self.toRead = toRead
            self.removed = removed
        }
    }

    /// Compares a listing with the catalog. `ignoring` names files that are not memos yet
    /// (being recorded); files whose extension voicememo does not read are skipped.
    public func changes(for listing: [MemoFileStatus], ignoring: Set<String> = []) -> Changes {
        var changes = Changes()
        var present = Set<String>()
        let byName = Dictionary(memos.values.map { ($0.fileName, $0) }, uniquingKeysWith: { first, _ in first })
        for status in listing where !ignoring.contains(status.fileName) && Self.mayBeMemo(status.fileName) {
            if let known = byName[status.fileName], status.matches(known) {
                present.insert(known.id)
            } else {
                changes.toRead.append(status)
            }
        }
        let rereadIDs = Set(changes.toRead.map { MemoNaming.memoID(forFileName: $0.fileName) })
        changes.removed = memos.keys.filter { !present.contains($0) && !rereadIDs.contains($0) }.sorted()
        changes.toRead.sort { $0.fileName < $1.fileName }
        return changes
    }

    /// Only names with an audio extension are worth opening; hidden and temporary files never are.
    public static func mayBeMemo(_ name: String) -> Bool {
        guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return false }
        let ext = name[name.index(after: dot)...].lowercased()
        return AudioFormat(fileExtension: ext) != nil || ext == "oga"
    }

    public mutating func insert(_ memo: MemoInfo) { memos[memo.id] = memo }

    @discardableResult
    public mutating func remove(id: String) -> MemoInfo? { memos.removeValue(forKey: id) }

    public subscript(id: String) -> MemoInfo? { memos[id] }

    /// Memos newest first, as a listing shows them.
    public var newestFirst: [MemoInfo] {
        memos.values.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
    }
}
