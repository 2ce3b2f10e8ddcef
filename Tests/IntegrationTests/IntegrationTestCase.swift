import Foundation
import IntegrationSupport
import XCTest

/// The base class of integration tests: one `IntegrationFixture` per test
/// class, created in `setUp()` and closed in `tearDown()`, and a fresh
/// voicememod with an empty memo directory for every test.
///
/// If the fixture cannot start, every test of the class fails with the reason;
/// nothing is skipped. A failing test prints the daemon's log.
class IntegrationTestCase: XCTestCase {
    /// Whether each test gets its own daemon; override to return `false` for
    /// tests that need only the session and the audio server.
    class var launchesDaemon: Bool { true }

    /// What each test's daemon gets added to the session's environment.
    class func daemonEnvironment() throws -> [String: String] { [:] }

    private static let fixturesLock = NSLock()
    /// Read and written only under `fixturesLock`. Not a `Mutex`: a fixture is not `Sendable`,
    /// and each test reads its class's fixture while the dictionary keeps it.
    nonisolated(unsafe) private static var fixtures: [ObjectIdentifier: Result<IntegrationFixture, Error>] = [:]

    private var currentFixture: IntegrationFixture?
    private var currentDaemon: Daemon?

    /// The fixture shared by the tests of this class.
    var fixture: IntegrationFixture {
        guard let fixture = currentFixture else {
            preconditionFailure("fixture is only available between setUp and tearDown")
        }
        return fixture
    }

    /// This test's daemon, started in `setUp` and stopped in `tearDown`.
    var daemon: Daemon {
        guard let daemon = currentDaemon else {
            preconditionFailure("\(Self.self).launchesDaemon is false, or the test is not running")
        }
        return daemon
    }

    /// Starts this class's fixture; a failure is kept and thrown by every test.
    override class func setUp() {
        super.setUp()
        let fixture = Result { try makeFixture() }
        fixturesLock.withLock { fixtures[ObjectIdentifier(self)] = fixture }
    }

    /// The fixture this class's tests share; override for another kind of session.
    class func makeFixture() throws -> IntegrationFixture {
        try IntegrationFixture()
    }

    /// Closes this class's fixture, stopping every process it started.
    override class func tearDown() {
        let fixture = fixturesLock.withLock { fixtures.removeValue(forKey: ObjectIdentifier(self)) }
        try? fixture?.get().close()
        super.tearDown()
    }

    /// Fails the test if the fixture could not start; otherwise restores the
    /// audio server and stimulus, empties the memo directory and starts the daemon.
    override func setUpWithError() throws {
        try super.setUpWithError()
        let shared = Self.fixturesLock.withLock { Self.fixtures[ObjectIdentifier(Self.self)] }
        guard let shared else {
            preconditionFailure("\(Self.self).setUp() did not run; call super.setUp() when overriding it")
        }
        let fixture = try shared.get()
        currentFixture = fixture
        try fixture.prepareForTest()
        if Self.launchesDaemon {
            currentDaemon = try fixture.launchDaemon(environment: try Self.daemonEnvironment())
        }
    }

    /// Stops this test's daemon, printing its log if the test failed.
    override func tearDownWithError() throws {
        if let daemon = currentDaemon {
            daemon.stop()
            if (testRun?.totalFailureCount ?? 0) > 0 {
                print("voicememod log for \(name):\n\(daemon.log)")
            }
        }
        currentDaemon = nil
        currentFixture = nil
        try super.tearDownWithError()
    }
}
