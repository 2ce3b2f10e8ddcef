/// A libsndfile failure, carrying libsndfile's own explanation and the file it concerns.
public struct SoundFileError: Error, Equatable, CustomStringConvertible {
    /// The path of the file that failed.
    public let path: String
    /// What libsndfile said (`sf_strerror`).
    public let message: String

    public var description: String { "\(path): \(message)" }
}
