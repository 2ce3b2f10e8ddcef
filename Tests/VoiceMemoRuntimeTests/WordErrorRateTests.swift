import IntegrationSupport
import Testing

/// The measure the transcription tests hold the engine to: it must count what it claims.
@Suite("Word error rate")
struct WordErrorRateTests {
    @Test func textIsNormalisedAsTheReferenceIs() {
        #expect(
            WordErrorRate.words("He was not an ill-disposed young man.") == [
                "he", "was", "not", "an", "ill", "disposed", "young", "man",
            ])
        #expect(WordErrorRate.words("  Mr. DASHWOOD,\nthen ") == ["mr", "dashwood", "then"])
    }

    @Test(arguments: [
        ("a b c", "a b c", 0), ("a b c", "a x c", 1), ("a b c", "a c", 1), ("a b c", "a b c d", 1),
        ("a b c", "", 3), ("", "a b", 2), ("the cat sat", "cat sat the", 2),
    ])
    func editsAreCountedByWord(reference: String, hypothesis: String, errors: Int) {
        #expect(
            WordErrorRate.errors(
                reference: WordErrorRate.words(reference), hypothesis: WordErrorRate.words(hypothesis)) == errors)
    }
}
