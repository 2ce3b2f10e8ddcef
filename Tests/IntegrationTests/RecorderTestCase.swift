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
