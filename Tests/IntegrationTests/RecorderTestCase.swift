import IntegrationSupport
import XCTest

/// An integration test that talks to the daemon's recorder: `recorder` is connected to the
/// private bus (and listening for its signals) before each test and dropped after.
class RecorderTestCase: IntegrationTestCase {
    private(set) var recorder: VoiceMemoProxy!

    override func setUpWithError() throws {
        try super.setUpWithError()
        recorder = try VoiceMemoProxy(session: fixture.session)
    }

    override func tearDownWithError() throws {
        recorder = nil
        try super.tearDownWithError()
    }
}

/// A small deterministic generator (xorshift), so a failing random run can be replayed
/// from its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
