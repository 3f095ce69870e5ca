import HearthCore

/// The words of the action pages, in the languages of the e-mail templates (the link's `lang`).
struct PageStrings {
    var resetTitle: String
    var resetPrompt: String  // %EMAIL%
    var newPassword: String
    var save: String
    var resetDone: String
    var verifyTitle: String
    var verifyPrompt: String  // %EMAIL%
    var confirm: String
    var verifyDone: String
    var changeTitle: String
    var changePrompt: String  // %NEW_EMAIL%
    var changeDone: String  // %NEW_EMAIL%
    var recoverTitle: String
    var recoverPrompt: String  // %EMAIL%
    var recoverDone: String  // %EMAIL%
    var revertTitle: String
    var revertPrompt: String  // %EMAIL%
    var revertDone: String
    var signInTitle: String
    var signInPrompt: String
    var `continue`: String
    var invalidTitle: String
    var invalidText: String
    var weakPassword: String
    var failed: String

    static func forLanguage(_ lang: String?) -> (language: String, strings: PageStrings) {
        let key = language(lang)
        return (key, table[key] ?? table["en"]!)
    }

    static func language(_ lang: String?) -> String {
        LocaleFallback.language(for: lang, in: table)
    }

    static let table: [String: PageStrings] = [
        "en": PageStrings(
            resetTitle: "Reset your password", resetPrompt: "Choose a new password for %EMAIL%.",
            newPassword: "New password", save: "Save", resetDone: "Your password has been changed. You can now sign in with it.",
            verifyTitle: "Verify your email", verifyPrompt: "Confirm that %EMAIL% is your address.", confirm: "Confirm",
            verifyDone: "Your email address has been verified.",
            changeTitle: "Confirm your new email", changePrompt: "Make %NEW_EMAIL% your sign-in email.",
            changeDone: "Your sign-in email is now %NEW_EMAIL%.",
            recoverTitle: "Restore your sign-in email", recoverPrompt: "Change your sign-in email back to %EMAIL%.",
            recoverDone: "Your sign-in email is %EMAIL% again. Consider resetting your password too.",
            revertTitle: "Remove 2-step verification", revertPrompt: "Remove the second factor that was just added to the account %EMAIL%.",
            revertDone: "The second factor has been removed. Consider resetting your password too.",
            signInTitle: "Sign in", signInPrompt: "Continue in the app or page where you asked for this link.",
            continue: "Continue", invalidTitle: "This link does not work",
            invalidText: "The link has expired or has already been used. Ask for a new one.",
            weakPassword: "That password is too weak. Choose a longer one.",
            failed: "Something went wrong. Try again later."),
        "ko": PageStrings(
            resetTitle: "비밀번호 재설정", resetPrompt: "%EMAIL% 계정의 새 비밀번호를 입력하세요.", newPassword: "새 비밀번호",
            save: "저장", resetDone: "비밀번호가 변경되었습니다. 이제 새 비밀번호로 로그인할 수 있습니다.",
            verifyTitle: "이메일 인증", verifyPrompt: "%EMAIL% 주소가 본인의 주소인지 확인해 주세요.", confirm: "확인",
            verifyDone: "이메일 주소가 인증되었습니다.",
            changeTitle: "새 이메일 확인", changePrompt: "%NEW_EMAIL% 주소를 로그인 이메일로 설정합니다.",
            changeDone: "로그인 이메일이 %NEW_EMAIL%(으)로 변경되었습니다.",
            recoverTitle: "로그인 이메일 복원", recoverPrompt: "로그인 이메일을 %EMAIL%(으)로 되돌립니다.",
            recoverDone: "로그인 이메일이 다시 %EMAIL%입니다. 비밀번호도 재설정하시기 바랍니다.",
            revertTitle: "2단계 인증 삭제", revertPrompt: "%EMAIL% 계정에 방금 추가된 두 번째 인증 수단을 삭제합니다.",
            revertDone: "두 번째 인증 수단이 삭제되었습니다. 비밀번호도 재설정하시기 바랍니다.",
            signInTitle: "로그인", signInPrompt: "이 링크를 요청한 앱이나 페이지에서 계속하세요.", continue: "계속",
            invalidTitle: "사용할 수 없는 링크입니다", invalidText: "링크가 만료되었거나 이미 사용되었습니다. 새 링크를 요청하세요.",
            weakPassword: "비밀번호가 너무 약합니다. 더 긴 비밀번호를 사용하세요.", failed: "문제가 발생했습니다. 나중에 다시 시도하세요."),
        "ja": PageStrings(
            resetTitle: "パスワードの再設定", resetPrompt: "%EMAIL% の新しいパスワードを入力してください。", newPassword: "新しいパスワード",
            save: "保存", resetDone: "パスワードを変更しました。新しいパスワードでログインできます。",
            verifyTitle: "メールアドレスの確認", verifyPrompt: "%EMAIL% があなたのアドレスであることを確認してください。", confirm: "確認",
            verifyDone: "メールアドレスを確認しました。",
            changeTitle: "新しいメールアドレスの確認", changePrompt: "%NEW_EMAIL% をログイン用メールアドレスにします。",
            changeDone: "ログイン用メールアドレスを %NEW_EMAIL% に変更しました。",
            recoverTitle: "ログイン用メールアドレスの復元", recoverPrompt: "ログイン用メールアドレスを %EMAIL% に戻します。",
            recoverDone: "ログイン用メールアドレスを %EMAIL% に戻しました。パスワードの再設定もおすすめします。",
            revertTitle: "2 段階認証の削除", revertPrompt: "アカウント %EMAIL% に追加された 2 つ目の認証要素を削除します。",
            revertDone: "2 つ目の認証要素を削除しました。パスワードの再設定もおすすめします。",
            signInTitle: "ログイン", signInPrompt: "このリンクを依頼したアプリまたはページで続けてください。", continue: "続ける",
            invalidTitle: "このリンクは使用できません", invalidText: "リンクの有効期限が切れているか、すでに使用されています。新しいリンクを依頼してください。",
            weakPassword: "パスワードが弱すぎます。もっと長いパスワードにしてください。", failed: "問題が発生しました。しばらくしてからもう一度お試しください。"),
        "zh": PageStrings(
            resetTitle: "重置密码", resetPrompt: "为 %EMAIL% 设置新密码。", newPassword: "新密码", save: "保存",
            resetDone: "密码已更改，现在可以用新密码登录。",
            verifyTitle: "验证电子邮件", verifyPrompt: "确认 %EMAIL% 是您的地址。", confirm: "确认", verifyDone: "您的电子邮件地址已验证。",
            changeTitle: "确认新电子邮件", changePrompt: "将 %NEW_EMAIL% 设为登录邮箱。", changeDone: "您的登录邮箱现在是 %NEW_EMAIL%。",
            recoverTitle: "恢复登录邮箱", recoverPrompt: "将登录邮箱改回 %EMAIL%。", recoverDone: "登录邮箱已恢复为 %EMAIL%。建议您同时重置密码。",
            revertTitle: "移除两步验证", revertPrompt: "移除刚刚添加到账号 %EMAIL% 的第二重验证。",
            revertDone: "第二重验证已移除。建议您同时重置密码。",
            signInTitle: "登录", signInPrompt: "请在请求此链接的应用或页面中继续。", continue: "继续",
            invalidTitle: "此链接无效", invalidText: "链接已过期或已被使用，请重新请求。",
            weakPassword: "密码太弱，请使用更长的密码。", failed: "出现问题，请稍后重试。"),
        "zh-tw": PageStrings(
            resetTitle: "重設密碼", resetPrompt: "為 %EMAIL% 設定新密碼。", newPassword: "新密碼", save: "儲存",
            resetDone: "密碼已變更，現在可以用新密碼登入。",
            verifyTitle: "驗證電子郵件", verifyPrompt: "確認 %EMAIL% 是您的地址。", confirm: "確認", verifyDone: "您的電子郵件地址已驗證。",
            changeTitle: "確認新電子郵件", changePrompt: "將 %NEW_EMAIL% 設為登入信箱。", changeDone: "您的登入信箱現在是 %NEW_EMAIL%。",
            recoverTitle: "還原登入信箱", recoverPrompt: "將登入信箱改回 %EMAIL%。", recoverDone: "登入信箱已還原為 %EMAIL%。建議您同時重設密碼。",
            revertTitle: "移除兩步驟驗證", revertPrompt: "移除剛剛新增到帳戶 %EMAIL% 的第二重驗證。",
            revertDone: "第二重驗證已移除。建議您同時重設密碼。",
            signInTitle: "登入", signInPrompt: "請在要求此連結的應用程式或頁面中繼續。", continue: "繼續",
            invalidTitle: "此連結無效", invalidText: "連結已過期或已被使用，請重新要求。",
            weakPassword: "密碼太弱，請使用更長的密碼。", failed: "發生問題，請稍後再試。"),
        "fr": PageStrings(
            resetTitle: "Réinitialiser votre mot de passe", resetPrompt: "Choisissez un nouveau mot de passe pour %EMAIL%.",
            newPassword: "Nouveau mot de passe", save: "Enregistrer",
            resetDone: "Votre mot de passe a été modifié. Vous pouvez maintenant vous connecter.",
            verifyTitle: "Validez votre adresse e-mail", verifyPrompt: "Confirmez que %EMAIL% est votre adresse.",
            confirm: "Confirmer", verifyDone: "Votre adresse e-mail a été validée.",
            changeTitle: "Confirmez votre nouvelle adresse", changePrompt: "Faire de %NEW_EMAIL% votre adresse de connexion.",
            changeDone: "Votre adresse de connexion est maintenant %NEW_EMAIL%.",
            recoverTitle: "Rétablir votre adresse de connexion", recoverPrompt: "Rétablir %EMAIL% comme adresse de connexion.",
            recoverDone: "Votre adresse de connexion est de nouveau %EMAIL%. Pensez aussi à changer votre mot de passe.",
            revertTitle: "Supprimer la validation en deux étapes", revertPrompt: "Supprimer le second facteur qui vient d’être ajouté au compte %EMAIL%.",
            revertDone: "Le second facteur a été supprimé. Pensez aussi à changer votre mot de passe.",
            signInTitle: "Connexion", signInPrompt: "Continuez dans l'application ou la page où vous avez demandé ce lien.",
            continue: "Continuer", invalidTitle: "Ce lien ne fonctionne pas",
            invalidText: "Le lien a expiré ou a déjà été utilisé. Demandez-en un nouveau.",
            weakPassword: "Ce mot de passe est trop faible. Choisissez-en un plus long.",
            failed: "Un problème est survenu. Réessayez plus tard."),
        "de": PageStrings(
            resetTitle: "Passwort zurücksetzen", resetPrompt: "Wählen Sie ein neues Passwort für %EMAIL%.",
            newPassword: "Neues Passwort", save: "Speichern",
            resetDone: "Ihr Passwort wurde geändert. Sie können sich jetzt damit anmelden.",
            verifyTitle: "E-Mail-Adresse bestätigen", verifyPrompt: "Bestätigen Sie, dass %EMAIL% Ihre Adresse ist.",
            confirm: "Bestätigen", verifyDone: "Ihre E-Mail-Adresse wurde bestätigt.",
            changeTitle: "Neue E-Mail-Adresse bestätigen", changePrompt: "%NEW_EMAIL% als Anmeldeadresse verwenden.",
            changeDone: "Ihre Anmeldeadresse ist jetzt %NEW_EMAIL%.",
            recoverTitle: "Anmeldeadresse wiederherstellen", recoverPrompt: "Die Anmeldeadresse wieder auf %EMAIL% setzen.",
            recoverDone: "Ihre Anmeldeadresse ist wieder %EMAIL%. Setzen Sie am besten auch Ihr Passwort zurück.",
            revertTitle: "Bestätigung in zwei Schritten entfernen", revertPrompt: "Den zweiten Faktor entfernen, der soeben dem Konto %EMAIL% hinzugefügt wurde.",
            revertDone: "Der zweite Faktor wurde entfernt. Setzen Sie am besten auch Ihr Passwort zurück.",
            signInTitle: "Anmelden", signInPrompt: "Fahren Sie in der App oder auf der Seite fort, wo Sie den Link angefordert haben.",
            continue: "Weiter", invalidTitle: "Dieser Link funktioniert nicht",
            invalidText: "Der Link ist abgelaufen oder wurde schon verwendet. Fordern Sie einen neuen an.",
            weakPassword: "Dieses Passwort ist zu schwach. Wählen Sie ein längeres.",
            failed: "Etwas ist schiefgegangen. Versuchen Sie es später erneut."),
        "es": PageStrings(
            resetTitle: "Restablece tu contraseña", resetPrompt: "Elige una contraseña nueva para %EMAIL%.",
            newPassword: "Contraseña nueva", save: "Guardar",
            resetDone: "Tu contraseña se ha cambiado. Ya puedes acceder con ella.",
            verifyTitle: "Verifica tu correo", verifyPrompt: "Confirma que %EMAIL% es tu dirección.", confirm: "Confirmar",
            verifyDone: "Tu dirección de correo se ha verificado.",
            changeTitle: "Confirma tu nuevo correo", changePrompt: "Usar %NEW_EMAIL% como correo de acceso.",
            changeDone: "Tu correo de acceso ahora es %NEW_EMAIL%.",
            recoverTitle: "Restablece tu correo de acceso", recoverPrompt: "Volver a usar %EMAIL% como correo de acceso.",
            recoverDone: "Tu correo de acceso vuelve a ser %EMAIL%. Te recomendamos cambiar también la contraseña.",
            revertTitle: "Quitar la verificación en dos pasos", revertPrompt: "Quitar el segundo factor que se acaba de añadir a la cuenta %EMAIL%.",
            revertDone: "Se quitó el segundo factor. Te recomendamos cambiar también la contraseña.",
            signInTitle: "Acceder", signInPrompt: "Continúa en la aplicación o página donde pediste este enlace.",
            continue: "Continuar", invalidTitle: "Este enlace no funciona",
            invalidText: "El enlace ha caducado o ya se ha usado. Pide uno nuevo.",
            weakPassword: "La contraseña es demasiado débil. Elige una más larga.",
            failed: "Algo salió mal. Vuelve a intentarlo más tarde."),
    ]
}
