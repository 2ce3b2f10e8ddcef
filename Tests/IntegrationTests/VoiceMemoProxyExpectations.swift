import Bus
import IntegrationSupport
import XCTest

extension VoiceMemoProxy {
    /// Calls `member` expecting a contract error; returns it, or fails the test.
    func callFailing(
        _ member: BusMethodDeclaration, _ arguments: [BusValue] = [], file: StaticString = #filePath, line: UInt = #line
    )
        -> BusError?
    {
        do {
            let reply = try call(member, arguments)
            XCTFail("\(member.name) succeeded with \(reply); an error was expected", file: file, line: line)
            return nil
        } catch let error as BusError {
            return error
        } catch {
            XCTFail("\(member.name) failed with a non-bus error \(error)", file: file, line: line)
            return nil
        }
    }
}
