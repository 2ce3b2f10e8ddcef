import VoiceMemoCore
import VoiceMemoRuntime

/// Whether a memo may be played now: not while the recorder records (the two would share
/// the audio server's attention and the user's ears).
struct MemoPlayGate {
    /// Its open files are not memos yet, and playing is refused while it records.
    let recorder: Recorder
    /// The player every memo's Play goes to.
    let player: MemoPlayer

    /// Plays `memo` (held at its start if `paused`), or refuses while recording.
    func play(_ memo: MemoReference, paused: Bool) throws(RecorderError) {
        guard !recorder.isRecording else {
            throw .busy("a memo is being recorded; Stop it before playing another")
        }
        try player.play(memo, paused: paused)
    }
}
