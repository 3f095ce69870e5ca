/// FirebaseAuth's factor ids as the globals its Objective-C headers export to Swift.
public let PhoneMultiFactorID = "phone"
public let TOTPMultiFactorID = "totp"
