import AudioContainers
import Foundation
import IntegrationSupport
import SoundFile
import Testing
import VoiceMemoCore

/// A trimmed memo takes its original's metadata back, key for key: libsndfile writes the kept
/// audio with only the tags it knows, `TagEditor.copyMetadata` carries over the rest.
@Suite("Metadata transfer")
struct MetadataTransferTests {
    /// A memo tagged by another program (metaflac, ffmpeg) and cut by libsndfile as a trim
    /// cuts it: after the transfer, every tag reads back the same with that program, the
    /// picture's bytes are the same, and the cut audio is untouched.
    @Test(arguments: [AudioFormat.flac, .opus, .vorbis, .mp3, .wav])
    func everyTagOfTheOriginalIsCarriedOver(format: AudioFormat) throws {
        let fixture = try MemoFixture(format)
        defer { fixture.remove() }
        let picture = try ExternalTags.makePicture(in: fixture.directory)
        try ExternalTags.addTags(toFileAt: fixture.path, picture: picture)
        let tags = try ExternalTags.tags(ofFileAt: fixture.path)
        let excerpt = fixture.directory + "/excerpt." + format.fileExtension
        try SoundFileExcerpt.write(
            24_000..<72_000, of: SoundFileReader(path: fixture.path), to: excerpt,
            compressionLevel: format == .flac || format == .wav ? nil : format.compressionLevel(at: .medium))
        let cut = try Decoded(excerpt)
        #expect(try ExternalTags.tags(ofFileAt: excerpt) != tags, "libsndfile alone loses tags")

        try TagEditor.copyMetadata(from: fixture.path, to: excerpt, container: fixture.container)

        #expect(try ExternalTags.tags(ofFileAt: excerpt) == tags)
        #expect(try ExternalTags.title(ofFileAt: excerpt) == MemoFixture.originalTitle)
        let added: [String]
        switch format {
        case .flac:
            added = [
                "PERFORMER=Grace", "REPLAYGAIN_TRACK_GAIN=-3.50 dB", "  type: 2 (APPLICATION)", "  type: 6 (PICTURE)",
            ]
        case .opus, .vorbis: added = ["TAG:R128_TRACK_GAIN=-512", "TAG:LANGUAGE=en", "TAG:X_MEMO_PLACE=Bench 4"]
        case .mp3:
            added = ["TAG:comment=Recorded on the bench", "TAG:X_MEMO_PLACE=Bench 4", "TAG:comment=Cover (front)"]
        case .wav: added = ["TAG:artist=Ada", "TAG:comment=Lab notes", "XTRA: 65 78 74 72 61 21"]
        }
        #expect(added.allSatisfy(tags.contains), "\(tags)")
        if format != .wav {
            #expect(try ExternalTags.pictureBytes(ofFileAt: excerpt) == Data(contentsOf: URL(fileURLWithPath: picture)))
        }
        let trimmed = try Decoded(excerpt)
        #expect(
            trimmed.samples == cut.samples && trimmed.frameCount == cut.frameCount
                && trimmed.sampleRate == cut.sampleRate && trimmed.channelCount == cut.channelCount,
            "the same audio, frame count and samples")
        // The date is the original's: libsndfile's MP3 writer (LAME) would have cut it to the year.
        #expect(trimmed.date == (try Decoded(fixture.path)).date)
        #expect(
            Set(fixture.directoryEntries) == [
                "memo.\(format.fileExtension)", "cover.png", excerpt.split(separator: "/").last.map(String.init)!,
            ])
    }

    /// What a FLAC memo's tagger added reads back in its order, with its repeated keys, and
    /// the padding is kept for the next rename.
    @Test func flacCommentsKeepTheirOrderAndRepeatedKeys() throws {
        let fixture = try MemoFixture(.flac)
        defer { fixture.remove() }
        try ExternalTags.addTags(toFileAt: fixture.path, picture: try ExternalTags.makePicture(in: fixture.directory))
        let excerpt = fixture.directory + "/excerpt.flac"
        try SoundFileExcerpt.write(
            0..<48_000, of: SoundFileReader(path: fixture.path), to: excerpt, compressionLevel: nil)
        try TagEditor.copyMetadata(from: fixture.path, to: excerpt, container: .flac)
        let comments = try ExternalTags.tags(ofFileAt: excerpt).prefix { !$0.hasPrefix("  type:") }
        let performers = comments.filter { $0.hasPrefix("PERFORMER=") }
        #expect(performers == ["PERFORMER=Ada", "PERFORMER=Grace"])
        #expect(comments.contains("X_MEMO_PLACE=Bench 4") && comments.contains("REPLAYGAIN_TRACK_GAIN=-3.50 dB"))
        #expect(try SoundFileReader(path: excerpt).frameCount == 48_000)
    }

    /// Two Ogg streams of different codecs cannot share a comment header: refused, the target
    /// left as it was.
    @Test func anOpusCommentHeaderIsNotPutIntoVorbis() throws {
        let opus = try MemoFixture(.opus)
        let vorbis = try MemoFixture(.vorbis)
        defer {
            opus.remove()
            vorbis.remove()
        }
        let bytes = vorbis.bytes
        #expect(throws: TagEditError.self) {
            try TagEditor.copyMetadata(from: opus.path, to: vorbis.path, container: .ogg)
        }
        #expect(vorbis.bytes == bytes)
        #expect(vorbis.directoryEntries == ["memo.ogg"])
    }
}
