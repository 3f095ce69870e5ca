import Synchronization

/// How long the last link requests that sent mail took, so a request that sends nothing (an unknown address, or a
/// taken `newEmail`, under enumeration protection) takes a time drawn from the same distribution.
///
/// Drawing from recorded times keeps the shape of the distribution: sends are skewed (most are quick, a few wait on
/// the database or the mail relay), and a mean with some jitter would answer later than most sends, which a few
/// hundred paired requests show. The sleep's own overshoot (the timer and the scheduler) is measured and its median
/// taken off (its mean, pulled up by rare long stalls, would make the quiet path early), so the medians meet.
public final class EmailPacing: Sendable {
    /// Recent enough to follow the relay and the load; enough to draw from.
    static let kept = 128
    /// Sleeps whose overshoot is remembered.
    static let keptOversleeps = 31
    /// Until the first send is recorded.
    static let beforeFirstSend = 0.02

    private struct State {
        var sends: [Double] = []
        var next = 0
        /// How much longer the last sleeps lasted than asked.
        var oversleeps: [Double] = []
        var nextOversleep = 0

        var medianOversleep: Double { oversleeps.isEmpty ? 0 : oversleeps.sorted()[oversleeps.count / 2] }
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
        let asked = max(0, target - state.withLock { $0.medianOversleep })
        let start = ContinuousClock.now
        try? await Task.sleep(for: .seconds(asked))
        let over = min(max(Self.seconds(ContinuousClock.now - start) - asked, 0), 0.05)
        state.withLock { s in
            if s.oversleeps.count < Self.keptOversleeps {
                s.oversleeps.append(over)
            } else {
                s.oversleeps[s.nextOversleep] = over
            }
            s.nextOversleep = (s.nextOversleep + 1) % Self.keptOversleeps
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
