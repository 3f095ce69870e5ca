import Synchronization

/// How long the last link requests that sent mail took, so a request that sends nothing (an unknown address, or a
/// taken `newEmail`, under enumeration protection) takes a time drawn from the same distribution.
///
/// Drawing from recorded times keeps the shape of the distribution: sends are skewed (most are quick, a few wait on
/// the database or the mail relay), and a mean with some jitter would answer later than most sends, which a few
/// hundred paired requests show. The sleep's own overshoot (the timer and the scheduler) is measured and taken off,
/// so the unknown path is not later by that either.
public final class EmailPacing: Sendable {
    /// Recent enough to follow the relay and the load; enough to draw from.
    static let kept = 128
    /// Until the first send is recorded.
    static let beforeFirstSend = 0.02

    private struct State {
        var sends: [Double] = []
        var next = 0
        /// Running average of how much longer a sleep lasts than asked.
        var oversleep = 0.0
    }

    private let state = Mutex(State())

    public init() {}

    /// Records how long a request that sent mail took from the point where the two paths part.
    public func record(_ seconds: Double) {
        let value = min(max(seconds, 0), 10)
        state.withLock { s in
            if s.sends.count < Self.kept { s.sends.append(value) } else { s.sends[s.next] = value }
            s.next = (s.next + 1) % Self.kept
        }
    }

    /// How long a request that sends nothing should take: one of the recorded sends, drawn at random.
    public func delay(using random: inout some RandomNumberGenerator) -> Double {
        state.withLock { $0.sends.randomElement(using: &random) } ?? Self.beforeFirstSend
    }

    /// Takes as long as a send would.
    func wait() async {
        var random = SystemRandomNumberGenerator()
        let target = delay(using: &random)
        let asked = max(0, target - state.withLock { $0.oversleep })
        let start = ContinuousClock.now
        try? await Task.sleep(for: .seconds(asked))
        let over = Self.seconds(ContinuousClock.now - start) - asked
        state.withLock { $0.oversleep = $0.oversleep * 0.9 + min(max(over, 0), 0.05) * 0.1 }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
