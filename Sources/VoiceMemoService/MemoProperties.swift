import Bus
import VoiceMemoContract
import VoiceMemoCore

/// The memo interface's property values, as read from what the library knows of a memo:
/// the one place the getters, the listings (GetManagedObjects, ListMemos) and the change
/// announcements take them from, so a listing shows exactly what `Get` answers.
struct MemoProperties {
    /// Where `Path` says each file is.
    let files: MemoFiles
    /// `TranscriptStatus` of a memo: the transcription queue's to say.
    let transcriptStatus: (MemoInfo) -> String

    /// `declaration`'s value for `memo`.
    func value(_ declaration: BusPropertyDeclaration, of memo: MemoInfo) -> BusValue {
        switch declaration {
        case MemoMember.id: .string(memo.id)
        case MemoMember.title: .string(memo.title)
        case MemoMember.path: .string(files.path(of: memo.fileName))
        case MemoMember.format: .string(memo.format.rawValue)
        case MemoMember.created: .int64(memo.created)
        case MemoMember.duration: .double(memo.duration)
        case MemoMember.sampleRate: .uint32(memo.sampleRate)
        case MemoMember.channels: .uint32(memo.channels)
        case MemoMember.size: .uint64(memo.size)
        case MemoMember.transcriptStatus: .string(transcriptStatus(memo))
        case MemoMember.transcript: .string(memo.transcript.flatMap(Transcript.init(webVTT:))?.plainText ?? "")
        default: preconditionFailure("\(declaration.name) is no property of a memo")
        }
    }

    /// Every property's value, in the interface's order.
    func values(of memo: MemoInfo) -> [BusValue] {
        MemoMember.properties.map { value($0, of: memo) }
    }

    /// `a{sv}`: the properties by name, as GetManagedObjects lists them.
    func dictionary(of memo: MemoInfo) -> BusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            zip(MemoMember.properties, values(of: memo)).map {
                BusDictionaryEntry(key: .string($0.name), value: .variant($1))
            })
    }

    /// The properties that can change while a memo exists (its file renamed or rewritten).
    static let changeable = MemoMember.properties.filter { $0.changeSignal == .emits }.map(\.name)
}
