import Testing
import VoiceMemoCore

@Suite("TranscriptionModel values")
struct TranscriptionModelValidationTests {
    @Test(arguments: [
        "tiny.en", "base", "large-v3", "distil-large-v3", "Systran/faster-whisper-small", "/opt/models/tiny.en",
        "/home/ana/My Models/small",
    ])
    func namesAndAbsoluteDirectoriesAreKept(model: String) throws {
        #expect(try Validation.transcriptionModel(model, key: "Model") == model)
    }

    @Test(arguments: [
        "", "tiny en", "../tiny.en", "./tiny.en", "a/b/c", "models/", "tiny.en\n", "/opt/\u{7}bell", "café",
        String(repeating: "x", count: 97), "/" + String(repeating: "x", count: 4096),
    ])
    func anythingElseIsRefusedNamingTheProperty(model: String) {
        #expect {
            try Validation.transcriptionModel(model, key: "Model")
        } throws: { error in
            guard case .invalidArgument(let message) = error as? RecorderError else { return false }
            return message.hasPrefix("'Model' must be")
        }
    }
}
