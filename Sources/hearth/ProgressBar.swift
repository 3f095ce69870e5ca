import Foundation

/// A progress line on standard error: redrawn in place on a terminal, a line per tenth otherwise (CI logs).
struct ProgressBar {
    let total: Int
    let label: String
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var lastTenth = -1
    private let interactive = isatty(2) != 0

    init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    mutating func update(_ done: Int) {
        let now = Date()
        let tenth = total == 0 ? 10 : done * 10 / total
        if interactive {
            guard now.timeIntervalSince(lastDraw) >= 0.1 || done == total else { return }
            lastDraw = now
            let width = 30
            let filled = total == 0 ? width : done * width / total
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) \(label)  \(rate(done, now))".utf8))
            if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
        } else if tenth != lastTenth {
            lastTenth = tenth
            FileHandle.standardError.write(
                Data("\(done)/\(total) \(label) (\(tenth * 10)%)  \(rate(done, now))\n".utf8))
        }
    }

    private func rate(_ done: Int, _ now: Date) -> String {
        let seconds = now.timeIntervalSince(started)
        return seconds > 0 ? "\(Int(Double(done) / seconds))/s" : ""
    }
}
