import Foundation
import HearthCore

/// The text of verification SMS, in the language the client asked for (`X-Firebase-Locale`).
enum SMSTemplates {
    static let builtIn: [String: String] = [
        "en": "%LOGIN_CODE% is your verification code for %APP_NAME%.",
        "ko": "[%APP_NAME%] 인증 코드: %LOGIN_CODE%",
        "ja": "%APP_NAME% の確認コード: %LOGIN_CODE%",
        "zh": "%LOGIN_CODE% 是您的 %APP_NAME% 验证码。",
        "zh-tw": "%LOGIN_CODE% 是您的 %APP_NAME% 驗證碼。",
        "fr": "%LOGIN_CODE% est votre code de validation pour %APP_NAME%.",
        "de": "%LOGIN_CODE% ist Ihr Bestätigungscode für %APP_NAME%.",
        "es": "%LOGIN_CODE% es tu código de verificación de %APP_NAME%.",
    ]

    /// The project's template if it has one, else the built-in one for the locale's language
    /// ("ko-KR" → "ko"), else English; with the code and app name filled in.
    static func text(code: String, appName: String, locale: String?, projectTemplate: String?) -> String {
        let template = projectTemplate ?? template(for: locale)
        return template.replacingOccurrences(of: "%LOGIN_CODE%", with: code)
            .replacingOccurrences(of: "%APP_NAME%", with: appName)
    }

    static func template(for locale: String?) -> String {
        builtIn[LocaleFallback.language(for: locale, in: builtIn)]!
    }
}
