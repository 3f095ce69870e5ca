import Foundation
import HearthCore

/// The e-mail Hearth sends for each action, in the client's language (`X-Firebase-Locale`), or the project's own
/// template. Plain text and HTML from one source; placeholder values are HTML-escaped in the HTML part.
enum EmailTemplates {
    enum Kind: String, CaseIterable {
        case verifyEmail, passwordReset, changeEmail, recoverEmail, emailSignIn
        /// Security notices: a second factor was added (its link removes it); the password was changed (its link
        /// resets it).
        case secondFactorAdded, passwordChanged
        /// A passkey was added to or removed from the account (its link resets the password).
        case passkeyAdded, passkeyRemoved
    }

    struct Rendered: Equatable {
        var subject: String
        var text: String
        var html: String
        var senderName: String?
        var replyTo: String?
    }

    /// Values for Firebase's placeholders.
    struct Values {
        var link: String
        var email: String
        var newEmail: String?
        var appName: String
        var displayName: String?
        /// The added factor as the notice names it: a masked phone number, or the authenticator's name.
        var secondFactor: String? = nil
        /// The passkeys a passkey notice is about, by name.
        var passkey: String? = nil

        var table: [(String, String)] {
            [
                ("%LINK%", link), ("%EMAIL%", email), ("%NEW_EMAIL%", newEmail ?? ""), ("%APP_NAME%", appName),
                ("%DISPLAY_NAME%", displayName ?? ""), ("%SECOND_FACTOR%", secondFactor ?? ""),
                ("%PASSKEY%", passkey ?? ""),
            ]
        }
    }

    /// A built-in message: subject, the paragraph before the link, the one after.
    struct Text {
        var subject: String
        var before: String
        var after: String
    }

    /// Greeting and signature per language.
    static let frames: [String: (hello: String, thanks: String)] = [
        "en": ("Hello,", "Thanks,\nYour %APP_NAME% team"),
        "ko": ("안녕하세요.", "감사합니다.\n%APP_NAME% 팀 드림"),
        "ja": ("こんにちは。", "よろしくお願いいたします。\n%APP_NAME% チーム"),
        "zh": ("您好！", "谢谢！\n%APP_NAME% 团队"),
        "zh-tw": ("您好！", "謝謝！\n%APP_NAME% 團隊"),
        "fr": ("Bonjour,", "Merci,\nL'équipe %APP_NAME%"),
        "de": ("Hallo,", "Vielen Dank\nIhr %APP_NAME%-Team"),
        "es": ("Hola:", "Gracias,\nEl equipo de %APP_NAME%"),
    ]

    static let builtIn: [String: [Kind: Text]] = [
        "en": [
            .verifyEmail: Text(
                subject: "Verify your email for %APP_NAME%",
                before: "Follow this link to verify your email address.",
                after: "If you didn’t ask to verify this address, you can ignore this email."),
            .passwordReset: Text(
                subject: "Reset your password for %APP_NAME%",
                before: "Follow this link to reset your %APP_NAME% password for your %EMAIL% account.",
                after: "If you didn’t ask to reset your password, you can ignore this email."),
            .changeEmail: Text(
                subject: "Verify your new email for %APP_NAME%",
                before: "Follow this link to make %NEW_EMAIL% the sign-in email of your %APP_NAME% account.",
                after: "If you didn’t ask to change your email, you can ignore this email."),
            .recoverEmail: Text(
                subject: "Your sign-in email was changed for %APP_NAME%",
                before:
                    "Your sign-in email for %APP_NAME% was changed to %NEW_EMAIL%. If you didn’t ask to change it, follow this link to restore %EMAIL%.",
                after: "We also recommend that you reset your password."),
            .emailSignIn: Text(
                subject: "Sign in to %APP_NAME%",
                before: "We received a request to sign in to %APP_NAME% as %EMAIL%. Follow this link to sign in.",
                after: "If you did not request this link, you can safely ignore this email."),
            .secondFactorAdded: Text(
                subject: "You added 2-step verification to your %APP_NAME% account",
                before: "Your %APP_NAME% account %EMAIL% now asks for a second factor (%SECOND_FACTOR%) when you sign in. If you didn’t add it, follow this link to remove it.",
                after: "If you added it yourself, you can ignore this email."),
            .passwordChanged: Text(
                subject: "Your %APP_NAME% password was changed",
                before: "The password of your %APP_NAME% account %EMAIL% was just changed. If you didn’t change it, follow this link to choose a new one.",
                after: "If you changed it yourself, you can ignore this email."),
            .passkeyAdded: Text(
                subject: "A passkey was added to your %APP_NAME% account",
                before: "A passkey (%PASSKEY%) can now sign in to your %APP_NAME% account %EMAIL%. If you didn’t add it, follow this link to choose a new password, then remove the passkey in your account settings.",
                after: "If you added it yourself, you can ignore this email."),
            .passkeyRemoved: Text(
                subject: "A passkey was removed from your %APP_NAME% account",
                before: "A passkey (%PASSKEY%) can no longer sign in to your %APP_NAME% account %EMAIL%. If you didn’t remove it, follow this link to choose a new password.",
                after: "If you removed it yourself, you can ignore this email."),
        ],
        "ko": [
            .verifyEmail: Text(
                subject: "%APP_NAME% 이메일 주소 인증", before: "아래 링크를 눌러 이메일 주소를 인증하세요.",
                after: "인증을 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
            .passwordReset: Text(
                subject: "%APP_NAME% 비밀번호 재설정", before: "아래 링크를 눌러 %EMAIL% 계정의 %APP_NAME% 비밀번호를 재설정하세요.",
                after: "비밀번호 재설정을 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
            .changeEmail: Text(
                subject: "%APP_NAME% 새 이메일 주소 인증", before: "아래 링크를 눌러 %NEW_EMAIL% 주소를 %APP_NAME% 로그인 이메일로 설정하세요.",
                after: "변경을 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
            .recoverEmail: Text(
                subject: "%APP_NAME% 로그인 이메일이 변경되었습니다",
                before: "%APP_NAME% 로그인 이메일이 %NEW_EMAIL%(으)로 변경되었습니다. 직접 변경하지 않았다면 아래 링크를 눌러 %EMAIL% 주소를 복원하세요.",
                after: "비밀번호도 재설정하시기 바랍니다."),
            .emailSignIn: Text(
                subject: "%APP_NAME% 로그인", before: "%EMAIL% 계정으로 %APP_NAME%에 로그인하려면 아래 링크를 누르세요.",
                after: "로그인을 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
            .secondFactorAdded: Text(
                subject: "%APP_NAME% 계정에 2단계 인증이 추가되었습니다",
                before: "%APP_NAME% 계정 %EMAIL%에 로그인할 때 두 번째 인증 수단(%SECOND_FACTOR%)을 요구하도록 설정되었습니다. 직접 추가하지 않았다면 아래 링크를 눌러 삭제하세요.",
                after: "직접 추가했다면 이 이메일을 무시하셔도 됩니다."),
            .passwordChanged: Text(
                subject: "%APP_NAME% 비밀번호가 변경되었습니다",
                before: "%APP_NAME% 계정 %EMAIL%의 비밀번호가 방금 변경되었습니다. 직접 변경하지 않았다면 아래 링크를 눌러 새 비밀번호를 설정하세요.",
                after: "직접 변경했다면 이 이메일을 무시하셔도 됩니다."),
            .passkeyAdded: Text(
                subject: "%APP_NAME% 계정에 패스키가 추가되었습니다",
                before: "이제 패스키(%PASSKEY%)로 %APP_NAME% 계정 %EMAIL%에 로그인할 수 있습니다. 직접 추가하지 않았다면 아래 링크를 눌러 비밀번호를 새로 설정한 뒤 계정 설정에서 패스키를 삭제하세요.",
                after: "직접 추가했다면 이 이메일을 무시하셔도 됩니다."),
            .passkeyRemoved: Text(
                subject: "%APP_NAME% 계정에서 패스키가 삭제되었습니다",
                before: "이제 패스키(%PASSKEY%)로 %APP_NAME% 계정 %EMAIL%에 로그인할 수 없습니다. 직접 삭제하지 않았다면 아래 링크를 눌러 비밀번호를 새로 설정하세요.",
                after: "직접 삭제했다면 이 이메일을 무시하셔도 됩니다."),
        ],
        "ja": [
            .verifyEmail: Text(
                subject: "%APP_NAME% のメールアドレスを確認してください", before: "次のリンクからメールアドレスを確認してください。",
                after: "このアドレスの確認を依頼していない場合は、このメールを無視してください。"),
            .passwordReset: Text(
                subject: "%APP_NAME% のパスワードを再設定してください", before: "次のリンクから %EMAIL% の %APP_NAME% パスワードを再設定してください。",
                after: "パスワードの再設定を依頼していない場合は、このメールを無視してください。"),
            .changeEmail: Text(
                subject: "%APP_NAME% の新しいメールアドレスを確認してください",
                before: "次のリンクから %NEW_EMAIL% を %APP_NAME% のログイン用メールアドレスにしてください。",
                after: "変更を依頼していない場合は、このメールを無視してください。"),
            .recoverEmail: Text(
                subject: "%APP_NAME% のログイン用メールアドレスが変更されました",
                before: "%APP_NAME% のログイン用メールアドレスが %NEW_EMAIL% に変更されました。心当たりがない場合は、次のリンクから %EMAIL% に戻してください。",
                after: "パスワードの再設定もおすすめします。"),
            .emailSignIn: Text(
                subject: "%APP_NAME% へのログイン", before: "%EMAIL% で %APP_NAME% にログインするには、次のリンクを開いてください。",
                after: "このリンクを依頼していない場合は、このメールを無視してください。"),
            .secondFactorAdded: Text(
                subject: "%APP_NAME% アカウントに 2 段階認証が追加されました",
                before: "%APP_NAME% アカウント %EMAIL% のログインで 2 つ目の認証要素（%SECOND_FACTOR%）が求められるようになりました。心当たりがない場合は、次のリンクから削除してください。",
                after: "ご自身で追加した場合は、このメールを無視してください。"),
            .passwordChanged: Text(
                subject: "%APP_NAME% のパスワードが変更されました",
                before: "%APP_NAME% アカウント %EMAIL% のパスワードが変更されました。心当たりがない場合は、次のリンクから新しいパスワードを設定してください。",
                after: "ご自身で変更した場合は、このメールを無視してください。"),
            .passkeyAdded: Text(
                subject: "%APP_NAME% アカウントにパスキーが追加されました",
                before: "パスキー（%PASSKEY%）で %APP_NAME% アカウント %EMAIL% にログインできるようになりました。心当たりがない場合は、このリンクから新しいパスワードを設定し、アカウント設定でパスキーを削除してください。",
                after: "ご自身で追加した場合は、このメールを無視してください。"),
            .passkeyRemoved: Text(
                subject: "%APP_NAME% アカウントからパスキーが削除されました",
                before: "パスキー（%PASSKEY%）で %APP_NAME% アカウント %EMAIL% にログインできなくなりました。心当たりがない場合は、このリンクから新しいパスワードを設定してください。",
                after: "ご自身で削除した場合は、このメールを無視してください。"),
        ],
        "zh": [
            .verifyEmail: Text(
                subject: "验证您在 %APP_NAME% 的电子邮件地址", before: "请点击以下链接验证您的电子邮件地址。",
                after: "如果您未请求验证此地址，请忽略此邮件。"),
            .passwordReset: Text(
                subject: "重置您的 %APP_NAME% 密码", before: "请点击以下链接重置 %EMAIL% 帐号的 %APP_NAME% 密码。",
                after: "如果您未请求重置密码，请忽略此邮件。"),
            .changeEmail: Text(
                subject: "验证您在 %APP_NAME% 的新电子邮件地址", before: "请点击以下链接，将 %NEW_EMAIL% 设为您的 %APP_NAME% 登录邮箱。",
                after: "如果您未请求更改，请忽略此邮件。"),
            .recoverEmail: Text(
                subject: "您的 %APP_NAME% 登录邮箱已更改",
                before: "您的 %APP_NAME% 登录邮箱已更改为 %NEW_EMAIL%。如果这不是您本人的操作，请点击以下链接恢复为 %EMAIL%。",
                after: "我们还建议您重置密码。"),
            .emailSignIn: Text(
                subject: "登录 %APP_NAME%", before: "请点击以下链接，以 %EMAIL% 登录 %APP_NAME%。",
                after: "如果您未请求此链接，请忽略此邮件。"),
            .secondFactorAdded: Text(
                subject: "您的 %APP_NAME% 账号已添加两步验证",
                before: "您的 %APP_NAME% 账号 %EMAIL% 登录时现在需要第二重验证（%SECOND_FACTOR%）。如果不是您添加的，请点击以下链接将其移除。",
                after: "如果是您本人添加的，请忽略此电子邮件。"),
            .passwordChanged: Text(
                subject: "您的 %APP_NAME% 密码已更改",
                before: "您的 %APP_NAME% 账号 %EMAIL% 的密码刚刚已更改。如果不是您本人更改的，请点击以下链接设置新密码。",
                after: "如果是您本人更改的，请忽略此电子邮件。"),
            .passkeyAdded: Text(
                subject: "您的 %APP_NAME% 账号添加了通行密钥",
                before: "通行密钥（%PASSKEY%）现在可以登录您的 %APP_NAME% 账号 %EMAIL%。如果这不是您添加的，请点击此链接设置新密码，然后在账号设置中移除该通行密钥。",
                after: "如果是您本人添加的，请忽略此电子邮件。"),
            .passkeyRemoved: Text(
                subject: "您的 %APP_NAME% 账号移除了通行密钥",
                before: "通行密钥（%PASSKEY%）已无法登录您的 %APP_NAME% 账号 %EMAIL%。如果这不是您移除的，请点击此链接设置新密码。",
                after: "如果是您本人移除的，请忽略此电子邮件。"),
        ],
        "zh-tw": [
            .verifyEmail: Text(
                subject: "驗證您在 %APP_NAME% 的電子郵件地址", before: "請點選以下連結驗證您的電子郵件地址。",
                after: "如果您未要求驗證此地址，請忽略這封郵件。"),
            .passwordReset: Text(
                subject: "重設您的 %APP_NAME% 密碼", before: "請點選以下連結重設 %EMAIL% 帳戶的 %APP_NAME% 密碼。",
                after: "如果您未要求重設密碼，請忽略這封郵件。"),
            .changeEmail: Text(
                subject: "驗證您在 %APP_NAME% 的新電子郵件地址", before: "請點選以下連結，將 %NEW_EMAIL% 設為您的 %APP_NAME% 登入信箱。",
                after: "如果您未要求變更，請忽略這封郵件。"),
            .recoverEmail: Text(
                subject: "您的 %APP_NAME% 登入信箱已變更",
                before: "您的 %APP_NAME% 登入信箱已變更為 %NEW_EMAIL%。如果這不是您本人的操作，請點選以下連結還原為 %EMAIL%。",
                after: "我們也建議您重設密碼。"),
            .emailSignIn: Text(
                subject: "登入 %APP_NAME%", before: "請點選以下連結，以 %EMAIL% 登入 %APP_NAME%。",
                after: "如果您未要求此連結，請忽略這封郵件。"),
            .secondFactorAdded: Text(
                subject: "您的 %APP_NAME% 帳戶已新增兩步驟驗證",
                before: "您的 %APP_NAME% 帳戶 %EMAIL% 登入時現在需要第二重驗證（%SECOND_FACTOR%）。如果不是您新增的，請點選以下連結將其移除。",
                after: "如果是您本人新增的，請忽略這封電子郵件。"),
            .passwordChanged: Text(
                subject: "您的 %APP_NAME% 密碼已變更",
                before: "您的 %APP_NAME% 帳戶 %EMAIL% 的密碼剛剛已變更。如果不是您本人變更的，請點選以下連結設定新密碼。",
                after: "如果是您本人變更的，請忽略這封電子郵件。"),
            .passkeyAdded: Text(
                subject: "您的 %APP_NAME% 帳戶新增了密碼金鑰",
                before: "密碼金鑰（%PASSKEY%）現在可以登入您的 %APP_NAME% 帳戶 %EMAIL%。如果這不是您新增的，請點選此連結設定新密碼，然後在帳戶設定中移除該密碼金鑰。",
                after: "如果是您本人新增的，請忽略這封電子郵件。"),
            .passkeyRemoved: Text(
                subject: "您的 %APP_NAME% 帳戶移除了密碼金鑰",
                before: "密碼金鑰（%PASSKEY%）已無法登入您的 %APP_NAME% 帳戶 %EMAIL%。如果這不是您移除的，請點選此連結設定新密碼。",
                after: "如果是您本人移除的，請忽略這封電子郵件。"),
        ],
        "fr": [
            .verifyEmail: Text(
                subject: "Validez votre adresse e-mail pour %APP_NAME%",
                before: "Cliquez sur ce lien pour valider votre adresse e-mail.",
                after: "Si vous n'avez pas demandé à valider cette adresse, vous pouvez ignorer cet e-mail."),
            .passwordReset: Text(
                subject: "Réinitialisez votre mot de passe pour %APP_NAME%",
                before: "Cliquez sur ce lien pour réinitialiser le mot de passe %APP_NAME% du compte %EMAIL%.",
                after: "Si vous n'avez pas demandé à réinitialiser votre mot de passe, vous pouvez ignorer cet e-mail."),
            .changeEmail: Text(
                subject: "Validez votre nouvelle adresse e-mail pour %APP_NAME%",
                before: "Cliquez sur ce lien pour faire de %NEW_EMAIL% l'adresse de connexion de votre compte %APP_NAME%.",
                after: "Si vous n'avez pas demandé ce changement, vous pouvez ignorer cet e-mail."),
            .recoverEmail: Text(
                subject: "Votre adresse de connexion à %APP_NAME% a été modifiée",
                before:
                    "Votre adresse de connexion à %APP_NAME% a été remplacée par %NEW_EMAIL%. Si vous n'êtes pas à l'origine de ce changement, cliquez sur ce lien pour rétablir %EMAIL%.",
                after: "Nous vous conseillons aussi de réinitialiser votre mot de passe."),
            .emailSignIn: Text(
                subject: "Connexion à %APP_NAME%",
                before: "Cliquez sur ce lien pour vous connecter à %APP_NAME% avec le compte %EMAIL%.",
                after: "Si vous n'avez pas demandé ce lien, vous pouvez ignorer cet e-mail."),
            .secondFactorAdded: Text(
                subject: "Validation en deux étapes ajoutée à votre compte %APP_NAME%",
                before: "Votre compte %APP_NAME% %EMAIL% demande désormais un second facteur (%SECOND_FACTOR%) à la connexion. Si vous ne l’avez pas ajouté, suivez ce lien pour le supprimer.",
                after: "Si vous l’avez ajouté vous-même, vous pouvez ignorer cet e-mail."),
            .passwordChanged: Text(
                subject: "Le mot de passe de votre compte %APP_NAME% a été modifié",
                before: "Le mot de passe de votre compte %APP_NAME% %EMAIL% vient d’être modifié. Si vous ne l’avez pas modifié, suivez ce lien pour en choisir un nouveau.",
                after: "Si vous l’avez modifié vous-même, vous pouvez ignorer cet e-mail."),
            .passkeyAdded: Text(
                subject: "Une clé d'accès a été ajoutée à votre compte %APP_NAME%",
                before: "Une clé d'accès (%PASSKEY%) permet désormais de vous connecter à votre compte %APP_NAME% %EMAIL%. Si vous ne l'avez pas ajoutée, suivez ce lien pour choisir un nouveau mot de passe, puis supprimez la clé d'accès dans les paramètres de votre compte.",
                after: "Si vous l'avez ajoutée vous-même, vous pouvez ignorer cet e-mail."),
            .passkeyRemoved: Text(
                subject: "Une clé d'accès a été supprimée de votre compte %APP_NAME%",
                before: "Une clé d'accès (%PASSKEY%) ne permet plus de vous connecter à votre compte %APP_NAME% %EMAIL%. Si vous ne l'avez pas supprimée, suivez ce lien pour choisir un nouveau mot de passe.",
                after: "Si vous l'avez supprimée vous-même, vous pouvez ignorer cet e-mail."),
        ],
        "de": [
            .verifyEmail: Text(
                subject: "Bestätigen Sie Ihre E-Mail-Adresse für %APP_NAME%",
                before: "Klicken Sie auf diesen Link, um Ihre E-Mail-Adresse zu bestätigen.",
                after: "Wenn Sie diese Bestätigung nicht angefordert haben, können Sie diese E-Mail ignorieren."),
            .passwordReset: Text(
                subject: "Passwort für %APP_NAME% zurücksetzen",
                before: "Klicken Sie auf diesen Link, um das %APP_NAME%-Passwort für Ihr Konto %EMAIL% zurückzusetzen.",
                after: "Wenn Sie das Zurücksetzen nicht angefordert haben, können Sie diese E-Mail ignorieren."),
            .changeEmail: Text(
                subject: "Bestätigen Sie Ihre neue E-Mail-Adresse für %APP_NAME%",
                before: "Klicken Sie auf diesen Link, um %NEW_EMAIL% zur Anmeldeadresse Ihres %APP_NAME%-Kontos zu machen.",
                after: "Wenn Sie diese Änderung nicht angefordert haben, können Sie diese E-Mail ignorieren."),
            .recoverEmail: Text(
                subject: "Ihre Anmeldeadresse für %APP_NAME% wurde geändert",
                before:
                    "Ihre Anmeldeadresse für %APP_NAME% wurde in %NEW_EMAIL% geändert. Wenn Sie das nicht waren, stellen Sie mit diesem Link %EMAIL% wieder her.",
                after: "Wir empfehlen außerdem, Ihr Passwort zurückzusetzen."),
            .emailSignIn: Text(
                subject: "Bei %APP_NAME% anmelden",
                before: "Klicken Sie auf diesen Link, um sich mit %EMAIL% bei %APP_NAME% anzumelden.",
                after: "Wenn Sie diesen Link nicht angefordert haben, können Sie diese E-Mail ignorieren."),
            .secondFactorAdded: Text(
                subject: "Bestätigung in zwei Schritten für Ihr %APP_NAME%-Konto hinzugefügt",
                before: "Ihr %APP_NAME%-Konto %EMAIL% verlangt bei der Anmeldung jetzt einen zweiten Faktor (%SECOND_FACTOR%). Falls Sie ihn nicht hinzugefügt haben, entfernen Sie ihn über diesen Link.",
                after: "Falls Sie ihn selbst hinzugefügt haben, können Sie diese E-Mail ignorieren."),
            .passwordChanged: Text(
                subject: "Ihr %APP_NAME%-Passwort wurde geändert",
                before: "Das Passwort Ihres %APP_NAME%-Kontos %EMAIL% wurde soeben geändert. Falls Sie es nicht geändert haben, wählen Sie über diesen Link ein neues.",
                after: "Falls Sie es selbst geändert haben, können Sie diese E-Mail ignorieren."),
            .passkeyAdded: Text(
                subject: "Ihrem %APP_NAME%-Konto wurde ein Passkey hinzugefügt",
                before: "Mit einem Passkey (%PASSKEY%) kann man sich jetzt bei Ihrem %APP_NAME%-Konto %EMAIL% anmelden. Wenn Sie ihn nicht hinzugefügt haben, folgen Sie diesem Link, um ein neues Passwort festzulegen, und entfernen Sie den Passkey dann in Ihren Kontoeinstellungen.",
                after: "Wenn Sie ihn selbst hinzugefügt haben, können Sie diese E-Mail ignorieren."),
            .passkeyRemoved: Text(
                subject: "Aus Ihrem %APP_NAME%-Konto wurde ein Passkey entfernt",
                before: "Mit dem Passkey (%PASSKEY%) kann man sich nicht mehr bei Ihrem %APP_NAME%-Konto %EMAIL% anmelden. Wenn Sie ihn nicht entfernt haben, folgen Sie diesem Link, um ein neues Passwort festzulegen.",
                after: "Wenn Sie ihn selbst entfernt haben, können Sie diese E-Mail ignorieren."),
        ],
        "es": [
            .verifyEmail: Text(
                subject: "Verifica tu correo electrónico para %APP_NAME%",
                before: "Haz clic en este enlace para verificar tu dirección de correo electrónico.",
                after: "Si no solicitaste verificar esta dirección, puedes ignorar este mensaje."),
            .passwordReset: Text(
                subject: "Restablece tu contraseña de %APP_NAME%",
                before: "Haz clic en este enlace para restablecer la contraseña de %APP_NAME% de la cuenta %EMAIL%.",
                after: "Si no solicitaste restablecer la contraseña, puedes ignorar este mensaje."),
            .changeEmail: Text(
                subject: "Verifica tu nuevo correo electrónico para %APP_NAME%",
                before: "Haz clic en este enlace para que %NEW_EMAIL% sea el correo de acceso de tu cuenta de %APP_NAME%.",
                after: "Si no solicitaste este cambio, puedes ignorar este mensaje."),
            .recoverEmail: Text(
                subject: "Se cambió tu correo de acceso a %APP_NAME%",
                before:
                    "Tu correo de acceso a %APP_NAME% se cambió a %NEW_EMAIL%. Si no fuiste tú, haz clic en este enlace para restablecer %EMAIL%.",
                after: "También te recomendamos restablecer tu contraseña."),
            .emailSignIn: Text(
                subject: "Accede a %APP_NAME%",
                before: "Haz clic en este enlace para acceder a %APP_NAME% con la cuenta %EMAIL%.",
                after: "Si no solicitaste este enlace, puedes ignorar este mensaje."),
            .secondFactorAdded: Text(
                subject: "Se añadió la verificación en dos pasos a tu cuenta de %APP_NAME%",
                before: "Tu cuenta de %APP_NAME% %EMAIL% ahora pide un segundo factor (%SECOND_FACTOR%) al iniciar sesión. Si no lo añadiste tú, sigue este enlace para quitarlo.",
                after: "Si lo añadiste tú, puedes ignorar este correo."),
            .passwordChanged: Text(
                subject: "Se cambió la contraseña de tu cuenta de %APP_NAME%",
                before: "La contraseña de tu cuenta de %APP_NAME% %EMAIL% acaba de cambiar. Si no la cambiaste tú, sigue este enlace para elegir una nueva.",
                after: "Si la cambiaste tú, puedes ignorar este correo."),
            .passkeyAdded: Text(
                subject: "Se añadió una llave de acceso a tu cuenta de %APP_NAME%",
                before: "Una llave de acceso (%PASSKEY%) ya puede iniciar sesión en tu cuenta de %APP_NAME% %EMAIL%. Si no la añadiste tú, sigue este enlace para elegir una contraseña nueva y quita la llave de acceso en la configuración de tu cuenta.",
                after: "Si la añadiste tú, puedes ignorar este correo."),
            .passkeyRemoved: Text(
                subject: "Se quitó una llave de acceso de tu cuenta de %APP_NAME%",
                before: "Una llave de acceso (%PASSKEY%) ya no puede iniciar sesión en tu cuenta de %APP_NAME% %EMAIL%. Si no la quitaste tú, sigue este enlace para elegir una contraseña nueva.",
                after: "Si la quitaste tú, puedes ignorar este correo."),
        ],
    ]

    /// The language the client asked for, as a key of `builtIn` ("ko-KR" → "ko", "zh-Hant" → "zh-tw"), else "en".
    static func language(for locale: String?) -> String {
        LocaleFallback.language(for: locale, in: builtIn)
    }

    static func render(
        _ kind: Kind, values: Values, locale: String?, override: EmailTemplate?
    ) -> Rendered {
        let language = language(for: locale)
        let text = builtIn[language]![kind]!
        let frame = frames[language]!
        let subject = fill(override?.subject ?? text.subject, values, escape: false)
        var rendered: Rendered
        if let body = override?.body {
            let html = fill(body, values, escape: true)
            rendered = Rendered(
                subject: subject, text: fill(override?.text ?? plainText(fromHTML: body), values, escape: false),
                html: html)
        } else {
            let paragraphs = [frame.hello, text.before, "%LINK%", text.after, frame.thanks]
            let plain = paragraphs.map { fill($0, values, escape: false) }.joined(separator: "\n\n")
            let htmlParagraphs = paragraphs.map { paragraph in
                paragraph == "%LINK%"
                    ? "<p><a href=\"\(escape(values.link))\">\(escape(values.link))</a></p>"
                    : "<p>" + fill(escape(paragraph), values, escape: true).replacingOccurrences(of: "\n", with: "<br>")
                        + "</p>"
            }
            let html = """
                <!doctype html>
                <html lang="\(language)"><head><meta charset="utf-8"><title>\(escape(subject))</title></head>
                <body style="font-family: sans-serif; line-height: 1.5">
                \(htmlParagraphs.joined(separator: "\n"))
                </body></html>
                """
            rendered = Rendered(subject: subject, text: plain + "\n", html: html)
        }
        rendered.senderName = override?.senderName.map { fill($0, values, escape: false) }
        rendered.replyTo = override?.replyTo
        return rendered
    }

    /// Replaces the placeholders in one pass, so a value that itself contains `%EMAIL%` is left alone.
    static func fill(_ template: String, _ values: Values, escape shouldEscape: Bool) -> String {
        let table = values.table
        var out = ""
        var rest = Substring(template)
        outer: while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            let tail = rest[percent...]
            for (name, value) in table where tail.hasPrefix(name) {
                out += shouldEscape ? escape(value) : value
                rest = tail.dropFirst(name.count)
                continue outer
            }
            out += "%"
            rest = tail.dropFirst()
        }
        return out + rest
    }

    static func escape(_ text: String) -> String { HTMLEscaping.escape(text) }

    /// A project's HTML body as plain text: line breaks for block ends, tags dropped, the common entities read.
    static func plainText(fromHTML html: String) -> String {
        // A link keeps its target: `<a href="X">label</a>` reads "label (X)".
        var text = html.replacingOccurrences(
            of: "<a\\s[^>]*href=\"([^\"]*)\"[^>]*>(.*?)</a>", with: "$2 ($1)",
            options: [.regularExpression, .caseInsensitive])
        for tag in ["<br>", "<br/>", "<br />", "</p>", "</div>", "</h1>", "</h2>", "</li>"] {
            text = text.replacingOccurrences(of: tag, with: tag.hasPrefix("</") ? "\n\n" : "\n", options: .caseInsensitive)
        }
        text = text.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
    }
}

extension EmailSettings.Templates {
    /// The project's own template for a kind of message, if it set one.
    subscript(kind: EmailTemplates.Kind) -> EmailTemplate? {
        switch kind {
        case .passwordReset: passwordReset
        case .verifyEmail: verifyEmail
        case .changeEmail: changeEmail
        case .recoverEmail: recoverEmail
        case .emailSignIn: emailSignIn
        case .secondFactorAdded: revertSecondFactorAddition
        case .passwordChanged: passwordChanged
        // Firebase has no template for these to override.
        case .passkeyAdded, .passkeyRemoved: nil
        }
    }
}
