/// Phone numbers: validation against each region's numbering plan and the E.164 form Hearth stores.
///
/// What Firebase does, as far as it can be seen from outside:
/// - Production answers `INVALID_PHONE_NUMBER : TOO_SHORT`, `… : TOO_LONG` (libphonenumber's names for
///   its length verdicts) and `… : Invalid format.`; which detail it gives an unknown calling code or a
///   length between the shortest and longest is not known, so those get "Invalid format.".
/// - The Admin SDKs check only for a leading `+` and leave E.164 compliance and normalisation to the
///   backend, and their integration suites create users with "+11234567890" (no area code starts
///   with 1) and with "+1" and ten random digits: account endpoints check the length, not the
///   pattern. Hence `Check.length`.
/// - The Auth emulator checks only for the leading `+` and stores the number as given.
public enum PhoneNumber {
    /// How much of the numbering plan a number must satisfy.
    public enum Check: Sendable {
        /// A known calling code and a national-number length one of its regions uses.
        case length
        /// That, and the pattern of numbers in service in one of those regions.
        case pattern
    }

    /// The E.164 form (`+` and digits) of a number written with a leading `+` and optionally spaces,
    /// hyphens, dots and parentheses, or INVALID_PHONE_NUMBER.
    ///
    /// The pattern is libphonenumber's general description, broader than its full validation: it
    /// accepts fictional numbers such as "+15555550100", which libphonenumber refuses, and every
    /// E.164 number libphonenumber accepts.
    public static func normalize(_ raw: String, check: Check = .pattern) throws(AuthError) -> String {
        guard let digits = digits(of: raw), let (code, national) = split(digits) else { throw invalidFormat }
        guard let plans = PhoneNumberPlan.compiled(callingCode: code) else { throw invalidFormat }
        let length = national.utf8.count
        if !plans.contains(where: { $0.plan.lengths.contains(length) }) {
            // Too short and too long are judged, as libphonenumber does, by the main region's lengths;
            // a length between them that no region uses has no verdict of its own.
            let main = plans[0].plan.lengths
            if let shortest = main.first, length < shortest { throw tooShort }
            if let longest = main.last, length > longest { throw tooLong }
            throw invalidFormat
        }
        if check == .pattern, !plans.contains(where: { $0.accepts(national) }) { throw invalidFormat }
        return "+" + digits
    }

    /// The calling code of a number in E.164 form, or nil when it has none that a region uses.
    public static func callingCode(of e164: String) -> Int? {
        guard let digits = e164Digits(e164) else { return nil }
        return split(digits)?.code
    }

    /// The region of a number in E.164 form as libphonenumber names it (ISO 3166-1 alpha-2 such as
    /// "KR", a few reserved codes such as "AC" and "XK", "001" for non-geographic services), or nil
    /// when no region uses its calling code.
    ///
    /// Within a shared calling code the number goes to the region whose leading digits or number
    /// ranges it falls in, as libphonenumber decides; a number in none of them (such as a fictional
    /// "+1 555" one) to the code's main region, the one libphonenumber formats and measures it by.
    public static func region(of e164: String) -> String? {
        guard let digits = e164Digits(e164), let (code, national) = split(digits),
            let plans = PhoneNumberPlan.compiled(callingCode: code)
        else { return nil }
        return (plans.first { $0.claims(national) } ?? plans[0]).plan.region
    }

    private static let invalidFormat = AuthError(.invalidPhoneNumber, "Invalid format.")
    private static let tooShort = AuthError(.invalidPhoneNumber, "TOO_SHORT")
    private static let tooLong = AuthError(.invalidPhoneNumber, "TOO_LONG")

    /// The digits after the `+`, dropping the separators people write numbers with; nil for anything
    /// else. libphonenumber, and so probably production, is more forgiving: it reads letters as digits
    /// ("+1 800 FLOWERS"), drops extensions, and drops a trunk prefix after the calling code
    /// ("+44 (0)20 …"), which here stays in the number and fails the length or pattern.
    private static func digits(of raw: String) -> String? {
        let text = raw.trimmingWhitespace()
        guard text.first == "+" else { return nil }
        var digits = ""
        for scalar in text.unicodeScalars.dropFirst() {
            switch scalar {
            case "0"..."9": digits.unicodeScalars.append(scalar)
            case " ", "-", ".", "(", ")": continue
            default: return nil
            }
        }
        return digits.isEmpty ? nil : digits
    }

    /// The digits of a number already in E.164 form.
    private static func e164Digits(_ e164: String) -> String? {
        guard e164.first == "+" else { return nil }
        let digits = e164.dropFirst()
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return String(digits)
    }

    /// The calling code and the national number. Calling codes are prefix-free (the generator
    /// checks), so the first of one to three leading digits that names a code is the only one.
    private static func split(_ digits: String) -> (code: Int, national: String)? {
        guard digits.first != "0" else { return nil }
        var code = 0
        for (index, digit) in digits.utf8.prefix(3).enumerated() {
            code = code * 10 + Int(digit - UInt8(ascii: "0"))
            if PhoneNumberPlan.byCallingCode[code] != nil {
                return (code, String(digits.dropFirst(index + 1)))
            }
        }
        return nil
    }
}
