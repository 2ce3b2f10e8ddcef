import Foundation
import IntegrationSupport

/// `simple-recorder.c`, beside this file: the smallest recorder on `pa_simple`, built with
/// the system's C compiler into the session's directory when the benchmark starts.
enum ReferenceProgram {
    /// Compiles the program into `directory` and returns the executable's path.
    ///
    /// - Throws: `BenchmarkError.unexpected` with the compiler's output if it fails.
    static func build(into directory: URL, environment: [String: String]) throws -> URL {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "simple-recorder.c")
        let program = directory.appendingPathComponent("simple-recorder")
        let compiled = try ChildProcess.run(
            "cc", ["-O2", "-o", program.path, source.path, "-lpulse-simple", "-lpulse", "-lsndfile"],
            environment: environment, timeout: .seconds(60))
        guard compiled.succeeded else { throw BenchmarkError.unexpected("cc \(source.lastPathComponent): \(compiled)") }
        return program
    }
}
