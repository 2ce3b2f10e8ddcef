import Dispatch
import PulseAudio
import VoiceMemoCore

/// Keeps the open recording in step with the audio server's inputs: route changes
/// (default input, devices coming and going, ports) and a muted input become the
/// contract's `RouteChanged` and `Interruption(…, input-muted, …)`.
///
/// Lives on the daemon's queue; the server monitor delivers its snapshots there.
final class AudioRouteService {
    private let recorder: Recorder
    private var monitor: ServerMonitor?
    private var tracker = RouteTracker()
    private var latest: InputRoutes?
    /// The memo the tracker's mute state belongs to.
    private var trackedMemo: String?

    init(recorder: Recorder, queue: DispatchQueue) {
        self.recorder = recorder
        monitor = ServerMonitor(queue: queue) { [weak self] snapshot in self?.serverChanged(snapshot) }
    }

    private func serverChanged(_ snapshot: ServerSnapshot?) {
        guard let snapshot else {
            // The server is gone; the capture path reports that, and its return.
            latest = nil
            tracker.forgetServer()
            return
        }
        latest = InputRoutes(
            defaultSource: snapshot.defaultSource,
            inputs: Dictionary(
                snapshot.sources.map { ($0.name, InputRoutes.Input(isMuted: $0.isMuted, activePort: $0.activePort)) },
                uniquingKeysWith: { first, _ in first }))
        evaluate()
    }

    /// The recorder's state or source changed: a recording that starts on a muted input is
    /// interrupted at once.
    func recorderChanged() {
        evaluate()
    }

    private func evaluate() {
        guard let routes = latest else { return }
        let memo = recorder.currentMemo?.id
        if memo != trackedMemo {
            tracker.reset()
            trackedMemo = memo
        }
        // While the capture stream is lost, the server's comings and goings are the capture
        // path's to report (server-restarted); the rules only keep their view current.
        let isOpen =
            [.recording, .paused, .interrupted].contains(recorder.state) && !recorder.activeSource.isEmpty
            && !recorder.isWaitingForCapture
        let (events, _) = tracker.update(
            routes, active: isOpen ? recorder.activeSource : "", isPinned: recorder.isPinnedToSource)
        for event in events {
            switch event {
            case .routeChanged(let reason, _, let source): recorder.changeRoute(reason, to: source)
            case .inputMuted(true): recorder.beginInterruption(.inputMuted, pausesCapture: false)
            case .inputMuted(false): recorder.endInterruption(.inputMuted)
            }
        }
    }
}
