import HearthCore
import Testing

/// The one locale fallback, on its own: what SMS, e-mail and the action pages answer a client's language with.
@Suite("Locale fallback")
struct LocaleFallbackTests {
    static let table = ["en": 0, "ko": 1, "pt-br": 2, "pt": 3, "zh": 4, "zh-tw": 5]

    @Test(arguments: [
        (nil, "en"), ("", "en"), ("ko", "ko"), ("ko-KR", "ko"), ("KO_kr", "ko"), ("pt-BR", "pt-br"), ("pt_br", "pt-br"),
        ("pt-PT", "pt"), ("zh", "zh"), ("zh-CN", "zh"), ("zh-Hans", "zh"), ("zh-Hant", "zh-tw"),
        ("zh-Hant-TW", "zh-tw"), ("zh-HK", "zh-tw"), ("zh-TW", "zh-tw"), ("fr", "en"), ("fr-CA", "en"),
        ("-", "en"),
    ] as [(String?, String)])
    func picksTheLanguageATableHas(_ locale: String?, _ expected: String) {
        #expect(LocaleFallback.language(for: locale, in: Self.table) == expected)
    }

    @Test func traditionalChineseFallsBackToTheLanguageWhenTheTableHasNoneOfIt() {
        #expect(LocaleFallback.language(for: "zh-Hant", in: ["en": 0, "zh": 1]) == "zh")
        #expect(LocaleFallback.language(for: "zh-HK", in: ["en": 0]) == "en")
    }
}
