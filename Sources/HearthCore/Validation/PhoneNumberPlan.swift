import Foundation
import Synchronization

/// One region's numbering plan, from libphonenumber's metadata.
///
/// The table is `PhoneNumberPlan+Data.swift`, written by `scripts/generate-phone-metadata`;
/// lengths and patterns are of the national number, the digits after the calling code.
public struct PhoneNumberPlan: Sendable {
    /// The region as libphonenumber names it: ISO 3166-1 alpha-2, a few reserved codes ("AC", "XK"),
    /// or "001" for non-geographic services (+800, +882, …).
    public let region: String
    /// The country calling code, without the plus.
    public let callingCode: Int
    /// Every length a national number may have.
    public let lengths: [Int]
    /// Lengths of mobile numbers; empty where the plan has none.
    public let mobileLengths: [Int]
    /// Lengths of fixed-line numbers; empty where the plan has none.
    public let fixedLineLengths: [Int]
    /// The numbers in service: libphonenumber's general description, matched whole.
    let pattern: String
    /// How the region's numbers are told from those of regions sharing its calling code; nil when it has the code alone.
    let attribution: Attribution?

    enum Attribution: Sendable {
        /// The number starts with these digits.
        case leadingDigits(String)
        /// The number matches one of the region's number types (fixed-line, mobile, toll-free, …) whole.
        case ranges(String)
    }

    init(
        _ region: String, _ callingCode: Int, _ lengths: [Int], mobile: [Int], fixedLine: [Int], _ pattern: String,
        leadingDigits: String? = nil, ranges: String? = nil
    ) {
        self.region = region
        self.callingCode = callingCode
        self.lengths = lengths
        self.mobileLengths = mobile
        self.fixedLineLengths = fixedLine
        self.pattern = pattern
        self.attribution = leadingDigits.map(Attribution.leadingDigits) ?? ranges.map(Attribution.ranges)
    }
}

extension PhoneNumberPlan {
    /// The plans sharing each calling code, main region first.
    static let byCallingCode: [Int: [PhoneNumberPlan]] = Dictionary(grouping: all, by: \.callingCode)

    /// A plan with its patterns compiled.
    struct Compiled: Sendable {
        let plan: PhoneNumberPlan
        private let pattern: NSRegularExpression
        private let leadingDigits: NSRegularExpression?
        private let ranges: NSRegularExpression?

        init(_ plan: PhoneNumberPlan) {
            self.plan = plan
            pattern = Self.compile("^(?:\(plan.pattern))$")
            switch plan.attribution {
            case .leadingDigits(let digits):
                leadingDigits = Self.compile("^(?:\(digits))")
                ranges = nil
            case .ranges(let numbers):
                leadingDigits = nil
                ranges = Self.compile("^(?:\(numbers))$")
            case nil:
                leadingDigits = nil
                ranges = nil
            }
        }

        /// Whether the plan allows this national number (ASCII digits).
        func accepts(_ national: String) -> Bool {
            plan.lengths.contains(national.utf8.count) && Self.matches(pattern, national)
        }

        /// Whether the number belongs to this plan's region rather than to another sharing its calling code.
        func claims(_ national: String) -> Bool {
            if let leadingDigits { return Self.matches(leadingDigits, national) }
            if let ranges { return accepts(national) && Self.matches(ranges, national) }
            return true
        }

        private static func compile(_ pattern: String) -> NSRegularExpression {
            // Generated from libphonenumber and compiled one by one in PhoneNumberTests: a failure is a bad table.
            try! NSRegularExpression(pattern: pattern)
        }

        private static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
        }
    }

    /// Compiled plans, filled as calling codes are first seen (all of them take 10–20 ms to compile, mostly
    /// for codes a deployment never meets). Keyed by calling code rather than region because the regions
    /// sharing a code are always consulted together, and the non-geographic "001" spans several codes.
    private static let compiled = Mutex<[Int: [Compiled]]>([:])

    /// The compiled plans sharing a calling code, main region first; nil for a code no region uses.
    static func compiled(callingCode: Int) -> [Compiled]? {
        if let hit = compiled.withLock({ $0[callingCode] }) { return hit }
        guard let plans = byCallingCode[callingCode] else { return nil }
        // Compiled outside the lock so one code's first use does not hold up the others; a thread
        // racing on the same code compiles it again and the first result stays.
        let built = plans.map(Compiled.init)
        return compiled.withLock { cache in
            if let first = cache[callingCode] { return first }
            cache[callingCode] = built
            return built
        }
    }
}
