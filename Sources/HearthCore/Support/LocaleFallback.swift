/// The one rule for picking a built-in text by the language a client asked for (`X-Firebase-Locale`, `hl`, `lang`):
/// SMS templates, e-mail templates and the action pages all choose their language with it.
public enum LocaleFallback {
    /// The key of `available` for `locale`: the locale itself ("pt-br", case and `_` folded), Traditional Chinese for
    /// "zh-Hant…" and "zh-HK" ("zh-tw"), the bare language ("ko-KR" → "ko"), else "en".
    public static func language(for locale: String?, among available: (String) -> Bool) -> String {
        guard let locale = locale?.lowercased().replacingOccurrences(of: "_", with: "-"), !locale.isEmpty else {
            return "en"
        }
        if available(locale) { return locale }
        if locale.hasPrefix("zh-hant") || locale == "zh-hk", available("zh-tw") { return "zh-tw" }
        let language = String(locale.prefix { $0 != "-" })
        return available(language) ? language : "en"
    }

    /// `language(for:among:)` over a table's keys.
    public static func language<Value>(for locale: String?, in table: [String: Value]) -> String {
        language(for: locale) { table[$0] != nil }
    }
}
