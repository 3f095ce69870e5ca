import Foundation
import HearthCore
import HearthEngine
import Hummingbird

/// Activity: the project's (or a picked tenant's) last 30 UTC days of sign-ins by provider, sign-ups, failed sign-ins, SMS and e-mails
/// sent, as bar charts drawn here as inline SVG (no script, no inline style: colours are the stylesheet's classes),
/// each with a text alternative, and the same numbers in one table for screen readers and keyboards.
struct ConsoleActivityPages: Sendable {
    let console: Console
    static let days = 30

    /// One coloured part of a chart's bars; `values` has a number per day, oldest first.
    struct Series {
        var name: String
        var values: [Int]
    }

    func show(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let origin = try console.scope(visit)
        let tenant = origin.project.tenant?.tenantID
        let picker = try console.tenantPicker(visit, page: "/console/activity", label: "Show the activity of", selected: tenant)
        let summary = try await console.engine.activity(days: Self.days, origin: origin)
        let providers = Set(summary.flatMap(\.signIns.keys)).sorted()
        let days = summary.map(\.day)
        func one(_ name: String, _ value: (ActivityDay) -> Int) -> [Series] {
            [Series(name: name, values: summary.map(value))]
        }
        let charts: [HTML] = [
            Self.chart(
                id: "sign-ins", title: "Sign-ins", days: days,
                series: providers.map { provider in
                    Series(name: provider, values: summary.map { $0.signIns[provider] ?? 0 })
                }),
            Self.chart(id: "sign-ups", title: "Sign-ups", days: days, series: one("Sign-ups", \.signUps)),
            Self.chart(id: "failed", title: "Failed sign-ins", days: days, series: one("Failed sign-ins", \.failedSignIns)),
            Self.chart(id: "sms", title: "SMS sent", days: days, series: one("SMS sent", \.smsSent)),
            Self.chart(id: "emails", title: "E-mails sent", days: days, series: one("E-mails sent", \.emailsSent)),
        ]
        let providerHeads: [HTML] = providers.map { "<th scope=\"col\">Sign-ins: \($0)</th>" }
        let rows: [HTML] = summary.reversed().map { day in
            let perProvider: [HTML] = providers.map { "<td>\(day.signIns[$0] ?? 0)</td>" }
            return """
                <tr><th scope="row">\(Self.dayText(day.day))</th><td>\(day.totalSignIns)</td>\(perProvider)<td>\(day.signUps)</td>
                <td>\(day.failedSignIns)</td><td>\(day.smsSent)</td><td>\(day.emailsSent)</td></tr>
                """
        }
        func total(_ value: (ActivityDay) -> Int) -> Int { summary.map(value).reduce(0, +) }
        let providerTotals: [HTML] = providers.map { provider in
            "<td id=\"total-sign-ins-\(provider)\">\(total { $0.signIns[provider] ?? 0 })</td>"
        }
        return .page(
            .ok, title: "Activity",
            """
            \(picker)
            <p class="muted" id="activity-scope">The last \(Self.days) days of end users' activity in \(tenant.map { "tenant \($0) of \(origin.project.firebaseProjectID)" } ?? origin.project.projectID), per day in UTC. Failed sign-ins count those of existing accounts.</p>
            \(charts)
            <h2 id="numbers">The numbers</h2>
            <div class="table"><table id="activity"><caption class="muted">Per day, newest first; the last row totals the \(Self.days) days.</caption>
            <thead><tr><th scope="col">Day (UTC)</th><th scope="col">Sign-ins</th>\(providerHeads)<th scope="col">Sign-ups</th>
            <th scope="col">Failed sign-ins</th><th scope="col">SMS sent</th><th scope="col">E-mails sent</th></tr></thead>
            <tbody>\(rows)</tbody>
            <tfoot><tr><th scope="row">All \(Self.days) days</th><td id="total-sign-ins">\(total(\.totalSignIns))</td>\(providerTotals)
            <td id="total-sign-ups">\(total(\.signUps))</td><td id="total-failed">\(total(\.failedSignIns))</td>
            <td id="total-sms">\(total(\.smsSent))</td><td id="total-emails">\(total(\.emailsSent))</td></tr></tfoot>
            </table></div>
            """)
    }

    static func dayText(_ day: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: day)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    // MARK: Drawing

    /// Small enough that its 14-unit text is still ~10 px when the chart shrinks to a 360 px screen.
    static let width = 480
    static let height = 170
    static let left = 40
    static let top = 12
    static let bottom = 28
    /// Colour classes of the stylesheet (`.s0` …), in order; more series than colours reuse them.
    static let colours = 6

    /// A bar per day, its series stacked; the `<title>` says what it shows and its total, and every bar has a
    /// `<title>` of its day's numbers for pointers. Nothing here is needed to read the numbers: the table has them.
    static func chart(id: String, title: String, days: [Date], series: [Series]) -> HTML {
        let totals = days.indices.map { i in series.reduce(0) { $0 + $1.values[i] } }
        let peak = max(totals.max() ?? 0, 1)
        let plotWidth = width - left - 8
        let plotHeight = height - top - bottom
        let slot = Double(plotWidth) / Double(max(days.count, 1))
        func y(_ value: Int) -> Double { Double(top) + Double(plotHeight) * (1 - Double(value) / Double(peak)) }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        var marks: [HTML] = []
        for (i, day) in days.enumerated() {
            let x = Double(left) + slot * Double(i) + slot * 0.15
            var below = 0
            let label = series.map { "\($0.name) \($0.values[i])" }.joined(separator: ", ")
            for (s, part) in series.enumerated() where part.values[i] > 0 {
                let value = part.values[i]
                marks.append(
                    """
                    <rect class="s\(s % colours)" x="\(number(x))" y="\(number(y(below + value)))" width="\(number(slot * 0.7))" height="\(number(y(below) - y(below + value)))"><title>\(dayText(day)): \(label)</title></rect>
                    """)
                below += value
            }
            // A label under every seventh day counted back from today, enough to place the bars at 360 px.
            if (days.count - 1 - i) % 7 == 0 {
                // Today's label ends at its bar rather than running off the right edge.
                let last = i == days.count - 1
                marks.append(
                    """
                    <text class="axis" x="\(number(last ? x + slot * 0.7 : x + slot * 0.35))" y="\(height - 6)" text-anchor="\(last ? "end" : "middle")">\(String(dayText(day).dropFirst(5)))</text>
                    """)
            }
        }
        let sum = totals.reduce(0, +)
        let busiest = totals.indices.max { totals[$0] < totals[$1] }
        let description =
            sum == 0
            ? "\(title) per day over the last \(days.count) days: none."
            : "\(title) per day over the last \(days.count) days: \(sum) in all, most on \(busiest.map { dayText(days[$0]) } ?? "") (\(busiest.map { totals[$0] } ?? 0))."
        let legend: HTML =
            series.count > 1
            ? "<ul class=\"legend\">\(series.enumerated().map { s, part -> HTML in "<li><span class=\"swatch s\(s % colours)\"></span>\(part.name)</li>" })</ul>"
            : ""
        return """
            <h2 id="chart-\(id)-heading">\(title)</h2>
            <svg class="chart" id="chart-\(id)" viewBox="0 0 \(width) \(height)" role="img" aria-labelledby="chart-\(id)-title">
            <title id="chart-\(id)-title">\(description)</title>
            <line class="axis-line" x1="\(left)" y1="\(top + plotHeight)" x2="\(width - 8)" y2="\(top + plotHeight)"/>
            <text class="axis" x="\(left - 6)" y="\(top + 12)" text-anchor="end">\(peak)</text>
            <text class="axis" x="\(left - 6)" y="\(top + plotHeight)" text-anchor="end">0</text>
            \(marks)
            </svg>
            \(legend)
            """
    }
}
