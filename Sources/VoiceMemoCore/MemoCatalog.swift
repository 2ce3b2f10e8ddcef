/// The memos in the directory, by id: the library's rules for keeping its view of the
/// directory (the source of truth) current without re-reading files that did not change,
/// and for paging and searching it without sorting or folding thousands of memos per call.
public struct MemoCatalog: Sendable {
    public private(set) var memos: [String: MemoInfo] = [:]
    /// Moves each time a memo is added, changed or removed, so that something made from
    /// the catalog (a kept listing of every memo) can tell it is out of date.
    public private(set) var revision = 0
    /// Every memo's place in time, oldest first; built on first use, then kept in step.
    private var chronology: [Place]?
    /// Each memo's title, file name and transcript as a search compares them; folded on first search.
    private var searchTexts: [String: SearchText]?

    /// Where a memo stands in the library's order: by creation, ties by id.
    private struct Place: Comparable, Sendable {
        var created: Int64
        var id: String

        init(_ memo: MemoInfo) {
            created = memo.created
            id = memo.id
        }

        static func < (a: Place, b: Place) -> Bool { (a.created, a.id) < (b.created, b.id) }
    }

    /// Which end of the library a page starts from.
    public enum Order: String, CaseIterable, Sendable {
        /// Latest `Created` first; of memos created in the same microsecond, the greater id.
        case newest
        /// The exact reverse of `newest`, so that paging from either end meets the same memos.
        case oldest
    }

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

    public mutating func insert(_ memo: MemoInfo) {
        let old = memos.updateValue(memo, forKey: memo.id)
        if old != memo { revision &+= 1 }
        let place = Place(memo)
        if chronology != nil, old.map(Place.init) != place {
            if let old {
                let index = position(of: Place(old))
                chronology!.remove(at: index)
            }
            let index = position(of: place)
            chronology!.insert(place, at: index)
        }
        if searchTexts != nil,
            old?.title != memo.title || old?.fileName != memo.fileName || old?.transcript != memo.transcript
        {
            searchTexts![memo.id] = Self.searchText(memo)
        }
    }

    /// Inserts many memos, as the start-up load delivers them: the order and search texts
    /// are then built again on their next use, rather than shifted thousands of times.
    public mutating func insert(contentsOf memos: some Collection<MemoInfo>) {
        if memos.count > 64 {
            chronology = nil
            searchTexts = nil
        }
        for memo in memos { insert(memo) }
    }

    @discardableResult
    public mutating func remove(id: String) -> MemoInfo? {
        guard let memo = memos.removeValue(forKey: id) else { return nil }
        revision &+= 1
        if chronology != nil {
            let index = position(of: Place(memo))
            chronology!.remove(at: index)
        }
        searchTexts?[id] = nil
        return memo
    }

    public subscript(id: String) -> MemoInfo? { memos[id] }

    public var count: Int { memos.count }

    /// Memos newest first, as a listing shows them.
    public var newestFirst: [MemoInfo] {
        (chronology ?? memos.values.map(Place.init).sorted()).reversed().map { memos[$0.id]! }
    }

    /// Up to `count` memos from the `offset`th in `order`; empty past the end.
    public mutating func page(offset: Int, count: Int, order: Order = .newest) -> [MemoInfo] {
        let places = orderedPlaces()
        guard offset < places.count, count > 0 else { return [] }
        let end = min(places.count, offset + count)
        switch order {
        case .oldest:
            return places[offset..<end].map { memos[$0.id]! }
        case .newest:
            return places[(places.count - end)..<(places.count - offset)].reversed().map { memos[$0.id]! }
        }
    }

    /// The ids of memos whose title, file name or transcript contains `text` as `SearchText` compares
    /// them, newest first; nothing for a text that folds to nothing.
    public mutating func find(_ text: String) -> [String] {
        let wanted = SearchText(text)
        guard !wanted.isEmpty else { return [] }
        if searchTexts == nil {
            searchTexts = memos.mapValues(Self.searchText)
        }
        let texts = searchTexts!
        return orderedPlaces().reversed().lazy.map(\.id).filter { texts[$0]!.contains(wanted) }
    }

    /// The title, file name and transcript as one text; a newline between them, which none
    /// holds (a transcript's segments are joined by spaces), keeps a match from spanning two.
    private static func searchText(_ memo: MemoInfo) -> SearchText {
        let spoken = memo.transcript.flatMap(Transcript.init(webVTT:))?.plainText ?? ""
        return SearchText(memo.title + "\n" + memo.fileName + "\n" + spoken)
    }

    private mutating func orderedPlaces() -> [Place] {
        if let chronology { return chronology }
        let places = memos.values.map(Place.init).sorted()
        chronology = places
        return places
    }

    /// Where `place` is or would go in the chronology (which exists when this is called).
    private func position(of place: Place) -> Int {
        var low = 0
        var high = chronology!.count
        while low < high {
            let middle = (low + high) / 2
            if chronology![middle] < place { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
