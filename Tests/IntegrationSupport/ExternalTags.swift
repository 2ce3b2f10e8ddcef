import Foundation

/// Tags a memo file as other programs do, and reads the tags back with the same programs, so
/// a test can tell that voicememo kept every one: metaflac for FLAC, ffmpeg and ffprobe for
/// Ogg Opus, MP3 and WAV.
///
/// Each file gets a picture (FLAC PICTURE, Opus `METADATA_BLOCK_PICTURE`, ID3v2 `APIC`),
/// fields libsndfile does not know (repeated ones too), and what each container has beyond:
/// a FLAC APPLICATION block, ID3v2 `TXXX` and `COMM` frames, WAV `IART` and `ICMT` entries
/// and an unknown chunk after the audio. (metaflac cannot add an APPLICATION block, and
/// ffmpeg writes a comment as `TXXX`: those two are added here, byte by byte, as the
/// specifications lay them out; no id3v2, mutagen or vorbiscomment is installed.)
package enum ExternalTags {
    /// The unknown chunk a WAV memo gets after its audio.
    package static let unknownChunk = Array("XTRA".utf8) + [6, 0, 0, 0] + Array("extra!".utf8)

    /// Writes a 16×16 PNG with ffmpeg into `directory` and returns its path.
    package static func makePicture(in directory: String) throws -> String {
        let path = directory + "/cover.png"
        _ = try run(
            "ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=teal:s=16x16", "-frames:v", "1", path])
        return path
    }

    /// Gives the memo at `path` (its format told by the extension) the extra tags and
    /// `picture`, rewriting it in place as the program does.
    package static func addTags(toFileAt path: String, picture: String) throws {
        let tagged = path + ".tagged." + (path.split(separator: ".").last.map(String.init) ?? "")
        switch fileExtension(path) {
        case "flac":
            try insertFlacApplicationBlock(intoFileAt: path)
            _ = try run(
                "metaflac",
                [
                    "--set-tag=DESCRIPTION=A memo with every kind of tag", "--set-tag=PERFORMER=Ada",
                    "--set-tag=PERFORMER=Grace", "--set-tag=LOCATION=Lab 2", "--set-tag=X_MEMO_PLACE=Bench 4",
                    "--set-tag=REPLAYGAIN_TRACK_GAIN=-3.50 dB",
                    "--import-picture-from=3|image/png|Cover (front)||\(picture)",
                    path,
                ])
            return
        case "opus", "ogg":
            let block = try flacPictureBlock(picture).base64EncodedString()
            _ = try run(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-i", path, "-c", "copy", "-metadata", "LANGUAGE=en", "-metadata",
                    "R128_TRACK_GAIN=-512", "-metadata", "PERFORMER=Ada", "-metadata", "X_MEMO_PLACE=Bench 4",
                    "-metadata", "METADATA_BLOCK_PICTURE=\(block)", tagged,
                ])
        case "mp3":
            _ = try run(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-i", path, "-i", picture, "-map", "0:a", "-map", "1", "-c", "copy",
                    "-id3v2_version", "4", "-metadata", "artist=Ada", "-metadata", "X_MEMO_PLACE=Bench 4",
                    "-metadata:s:v", "title=Cover", "-metadata:s:v", "comment=Cover (front)", tagged,
                ])
            try insertCommentFrame("Recorded on the bench", intoFileAt: tagged)
        case "wav":
            _ = try run(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-i", path, "-c", "copy", "-metadata", "artist=Ada", "-metadata",
                    "comment=Lab notes", tagged,
                ])
            try appendChunk(unknownChunk, toWaveAt: tagged)
        default:
            preconditionFailure("no tagging program for \(path)")
        }
        guard rename(tagged, path) == 0 else { throw FixtureError.systemCallFailed("rename", errno: errno) }
    }

    /// Every tag of the file but its title, as the program that wrote them reads them, in its
    /// order: metaflac's comments and its listing of the other blocks; ffprobe's tags of the
    /// file and of its streams (an Opus file's comments are its stream's, an MP3's picture's
    /// description is its stream's); for a WAV, also its chunks that are not audio, from the bytes.
    package static func tags(ofFileAt path: String) throws -> [String] {
        let lines: [String]
        switch fileExtension(path) {
        case "flac":
            let comments = try run("metaflac", ["--export-tags-to=-", path])
            let blocks = try run(
                "metaflac",
                [
                    "--list", "--except-block-type=STREAMINFO,SEEKTABLE,PADDING,VORBIS_COMMENT",
                    "--application-data-format=hexdump", path,
                ])
            lines = (text(comments) + text(blocks)).filter {
                !$0.hasPrefix("METADATA block #") && !$0.contains("is last:")
            }
        case "opus", "ogg":
            // The picture is ffmpeg's stream 1, compared as bytes by `pictureBytes`.
            lines = text(
                try run(
                    "ffprobe",
                    [
                        "-v", "error", "-select_streams", "a", "-show_entries", "stream_tags", "-of", "default=nw=1",
                        path,
                    ]))
        case "mp3":
            let fileTags = try run(
                "ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", path])
            let pictureTags = try run(
                "ffprobe",
                ["-v", "error", "-select_streams", "v", "-show_entries", "stream_tags", "-of", "default=nw=1", path])
            lines = text(fileTags) + text(pictureTags)
        case "wav":
            let fileTags = try run(
                "ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", path])
            lines = text(fileTags) + (try waveChunks(ofFileAt: path))
        default:
            preconditionFailure("no reading program for \(path)")
        }
        return lines.filter { !$0.uppercased().hasPrefix("TITLE=") && !$0.uppercased().hasPrefix("TAG:TITLE=") }
    }

    /// The title as the same programs read it.
    package static func title(ofFileAt path: String) throws -> String? {
        switch fileExtension(path) {
        case "flac":
            return text(try run("metaflac", ["--show-tag=TITLE", path])).first.map { String($0.dropFirst(6)) }
        case "opus", "ogg":
            return text(
                try run(
                    "ffprobe",
                    [
                        "-v", "error", "-select_streams", "a", "-show_entries", "stream_tags=title", "-of",
                        "default=nw=1:nk=1", path,
                    ])
            ).first
        default:
            return text(
                try run(
                    "ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "default=nw=1:nk=1", path])
            ).first
        }
    }

    /// The embedded picture's bytes, as metaflac or ffmpeg extracts them.
    package static func pictureBytes(ofFileAt path: String) throws -> Data {
        if fileExtension(path) == "flac" {
            return try run("metaflac", ["--export-picture-to=-", path])
        }
        return try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "image2pipe", "-"])
    }

    /// The frames ffmpeg decodes from the file (a player's length, encoder delay left out).
    package static func decodedFrames(ofFileAt path: String) throws -> Int {
        try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"]).count / 2
    }

    private static func fileExtension(_ path: String) -> String {
        path.split(separator: ".").last.map { $0.lowercased() } ?? ""
    }

    private static func text(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// A FLAC PICTURE block's body for `picture` (front cover, PNG), as Opus carries it base64
    /// in `METADATA_BLOCK_PICTURE`.
    private static func flacPictureBlock(_ picture: String) throws -> Data {
        let image = try Data(contentsOf: URL(fileURLWithPath: picture))
        var block = Data()
        func append(_ value: Int) { block += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        append(3)
        append(9)
        block += Data("image/png".utf8)
        append(13)
        block += Data("Cover (front)".utf8)
        for value in [16, 16, 24, 0, image.count] { append(value) }
        return block + image
    }

    /// Puts an APPLICATION block (id `vmTS`, 8 bytes of data) right after STREAMINFO.
    private static func insertFlacApplicationBlock(intoFileAt path: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        precondition(bytes.prefix(4) == Data("fLaC".utf8) && bytes[4] & 0x7F == 0, "a FLAC file starts with STREAMINFO")
        let isOnlyBlock = bytes[4] & 0x80 != 0
        bytes[4] &= 0x7F
        let body = Data("vmTS".utf8) + Data([1, 2, 3, 4, 0xFE, 0xFF, 0, 9])
        bytes.insert(contentsOf: Data([(isOnlyBlock ? 0x80 : 0) | 2, 0, 0, UInt8(body.count)]) + body, at: 42)
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    /// Inserts an ID3v2.4 `COMM` frame (language `eng`, no description, UTF-8) first in the
    /// file's ID3v2.4 tag.
    private static func insertCommentFrame(_ comment: String, intoFileAt path: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        precondition(bytes.prefix(4) == Data("ID3".utf8) + [4], "ffmpeg wrote an ID3v2.4 tag")
        let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1) }
        let body = Data([3]) + Data("eng".utf8) + Data([0]) + Data(comment.utf8)
        let frame = Data("COMM".utf8) + syncsafe(body.count) + Data([0, 0]) + body
        bytes.replaceSubrange(6..<10, with: syncsafe(size + frame.count))
        bytes.insert(contentsOf: frame, at: 10)
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    private static func syncsafe(_ value: Int) -> Data {
        Data([21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) })
    }

    /// Appends `chunk` (header and body, even length) to a RIFF WAVE file, its size following.
    private static func appendChunk(_ chunk: [UInt8], toWaveAt path: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        precondition(bytes.prefix(4) == Data("RIFF".utf8) && chunk.count % 2 == 0)
        bytes += chunk
        let size = UInt32(bytes.count - 8)
        bytes.replaceSubrange(4..<8, with: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: size >> UInt32($0)) })
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    /// Each chunk of a WAVE file that is neither its format nor its audio nor padding, as
    /// `ID: hex bytes` (a `LIST` chunk's too: ffprobe does not show unknown INFO entries).
    private static func waveChunks(ofFileAt path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var chunks: [String] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = bytes[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            let body = bytes[(offset + 8)..<min(bytes.count, offset + 8 + size)]
            if !["fmt ", "data", "JUNK", "fact", "PEAK"].contains(id) {
                chunks.append(id + ": " + body.map { String($0, radix: 16) }.joined(separator: " "))
            }
            offset += 8 + size + size % 2
        }
        return chunks
    }

    /// Runs `tool` from the PATH and returns its standard output; throws when it fails.
    private static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tags-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: scratch.path + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: scratch.path + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: scratch.path + ".out")
            try? FileManager.default.removeItem(atPath: scratch.path + ".err")
        }
        // Files, not pipes: a picture on stdout may outgrow a pipe's buffer before the wait.
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path + ".err"))
        try process.run()
        process.waitUntilExit()
        let output = try Data(contentsOf: URL(fileURLWithPath: scratch.path + ".out"))
        guard process.terminationStatus == 0 else {
            let complaint = (try? String(contentsOfFile: scratch.path + ".err", encoding: .utf8)) ?? ""
            throw FixtureError.commandFailed(
                command: ([tool] + arguments).joined(separator: " "),
                output: CommandOutput(status: process.terminationStatus, stdout: "", stderr: complaint))
        }
        return output
    }
}
