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

extension VoiceMemoProxy {
    /// Calls a memo's `member` expecting a contract error; returns it, or fails the test.
    func callMemoFailing(
        _ memo: ObjectPath, _ member: BusMethodDeclaration, _ arguments: [BusValue] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> BusError? {
        do {
            let reply = try callMemo(memo, member, arguments)
            XCTFail("\(member.name) succeeded with \(reply); an error was expected", file: file, line: line)
            return nil
        } catch let error as BusError {
            return error
        }
    }

    /// Sets a recorder property expecting a contract error; returns it, or fails the test.
    func setPropertyFailing(
        _ property: BusPropertyDeclaration, _ value: BusValue, file: StaticString = #filePath, line: UInt = #line
    ) throws -> BusError? {
        do {
            try setProperty(property, value)
            XCTFail("setting \(property.name) to \(value) succeeded; an error was expected", file: file, line: line)
            return nil
        } catch let error as BusError {
            return error
        }
    }
}
