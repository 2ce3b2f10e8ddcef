import Bus
import Foundation
import IntegrationSupport
import SoundFile
import VoiceMemoContract
import VoiceMemoCore
import XCTest

extension RecorderTestCase {
    /// Writes `samples` (48 kHz mono) as a memo file `name` of `format` into the memo
    /// directory, tagged with `title` and `date`; written aside and moved in, so the library
    /// reads it whole; `retag`, given the file's path aside, may tag it as another program
    /// would first. Returns its object once announced (after this call, not before).
    func addMemo(
        _ samples: [Int16], named name: String, format: AudioFormat = .wav, title: String? = nil,
        date: String = "2026-12-03", retag: ((String) throws -> Void)? = nil
    ) throws -> ObjectPath {
        try recorder.addMemo(
            samples, named: name, in: fixture.session, format: format, title: title, date: date, retag: retag)
    }
}
