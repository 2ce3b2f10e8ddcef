import Dispatch
import PulseAudio
import VoiceMemoCore
import VoiceMemoRuntime

/// Keeps the open recording in step with the audio server's inputs: route changes
/// (default input, devices coming and going, ports), a lost or returning input, and a
/// muted input become the contract's `RouteChanged` and `Interruption`s.
///
/// Lives on the daemon's queue; the server monitor delivers its snapshots there.
/// `@unchecked Sendable`: its state is touched only on `queue` (checked in `evaluate` and
/// `serverChanged`), where the monitor and the grace timers call back.
package final class AudioRouteService: @unchecked Sendable {
    /// How long the server gets to move a stream that follows the default before the
    /// stream is opened again on the new default (both servers move it within a few ms).
    private static let moveGrace: DispatchTimeInterval = .milliseconds(100)
    /// How long the server gets to pick a fallback for a vanished source before the input
    /// counts as lost (wireplumber settles within tens of milliseconds).
    private static let fallbackGrace: DispatchTimeInterval = .milliseconds(400)

    private let recorder: Recorder
    private let queue: DispatchQueue
    private let monitor: ServerMonitor
    private var tracker = RouteTracker()
    private var latest: InputRoutes?
    /// The memo the tracker's state belongs to.
    private var trackedMemo: String?
    private var isFallbackCheckScheduled = false

    /// Starts `monitor`, which delivers on `queue` (the daemon's), and follows the recorder.
    package init(recorder: Recorder, monitor: ServerMonitor, queue: DispatchQueue) {
        self.recorder = recorder
        self.monitor = monitor
        self.queue = queue
        monitor.start { [weak self] snapshot in self?.serverChanged(snapshot) }
        // A recording that starts (or moves) on a muted input is interrupted at once.
        recorder.notifications.observe { [weak self] notification in
            guard case .changed(let properties) = notification,
                properties.contains(.state) || properties.contains(.activeSource)
            else { return }
            self?.evaluate()
        }
    }

    private func serverChanged(_ snapshot: ServerSnapshot?) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let snapshot else {
            // The server is gone; the capture path reports that, and its return.
            latest = nil
            tracker.forgetServer()
            return
        }
        latest = InputRoutes(
            defaultSource: snapshot.defaultSource,
            inputs: Dictionary(
                snapshot.sources.map {
                    (
                        $0.name,
                        InputRoutes.Input(isMuted: $0.isMuted, activePort: $0.activePort, isMonitor: $0.isMonitor)
                    )
                },
                uniquingKeysWith: { first, _ in first }),
            capturing: snapshot.capturingSource)
        evaluate()
        followOutput(snapshot)
    }

    /// Keeps a call's system side on the default output (see `OutputFollowing`).
    private func followOutput(_ snapshot: ServerSnapshot) {
        let active = recorder.activeOutput
        if OutputFollowing.needsReopen(
            activeOutput: active.isEmpty ? nil : active, defaultOutput: snapshot.defaultSink,
            streamSource: snapshot.systemAudioSource, monitor: snapshot.monitor(of:))
        {
            recorder.followOutput()
        }
    }

    /// The open recording as the rules see it; nil while none is open or while the server
    /// itself is lost (its return is the capture path's to report, as `server-restarted`).
    private var recording: RecordingRoute? {
        guard recorder.state.hasOpenMemo, recorder.captureLoss != .serverLost
        else { return nil }
        return RecordingRoute(
            active: recorder.activeSource, pinnedSource: recorder.pinnedSource,
            isWaitingForInput: recorder.captureLoss == .deviceLost)
    }

    private func evaluate() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let routes = latest else { return }
        let memo = recorder.currentMemo?.id
        if memo != trackedMemo {
            tracker.reset()
            trackedMemo = memo
        }
        apply(tracker.update(routes, recording: recording))
        if tracker.isWaitingForFallback && !isFallbackCheckScheduled {
            isFallbackCheckScheduled = true
            queue.asyncAfter(deadline: .now() + Self.fallbackGrace) { [weak self] in
                guard let self else { return }
                isFallbackCheckScheduled = false
                apply(tracker.stopWaitingForFallback())
            }
        }
    }

    private func apply(_ events: [RouteEvent]) {
        for event in events {
            switch event {
            case .routeChanged(let reason, _, let source):
                recorder.changeRoute(reason, to: source)
                if reason == .defaultChanged { checkTheStreamMoved() }
            case .moved(let source): recorder.changeRoute(nil, to: source)
            case .inputMuted(true): recorder.beginInterruption(.inputMuted, pausesCapture: false)
            case .inputMuted(false): recorder.endInterruption(.inputMuted)
            case .inputLost: recorder.inputLost()
            case .inputReturned: recorder.inputReturned()
            }
        }
    }

    /// Opens the stream again on the new default if the server has not moved it there.
    private func checkTheStreamMoved() {
        queue.asyncAfter(deadline: .now() + Self.moveGrace) { [weak self] in
            guard let self, let recording, tracker.needsReopen(recording) else { return }
            recorder.reopenCapture()
        }
    }
}
