/// What an e-mail action code does, with FirebaseAuth's raw values.
public enum ActionCodeOperation: Int, Sendable {
    case unknown = 0
    case passwordReset = 1
    case verifyEmail = 2
    case recoverEmail = 3
    case emailLink = 4
    case verifyAndChangeEmail = 5
    case revertSecondFactorAddition = 6

}
