/// A phone number proven by an SMS code, or by a temporary proof the server issued when the number
/// turned out to belong to another account.
public final class PhoneAuthCredential: AuthCredential, @unchecked Sendable {
    enum Proof: Sendable, Equatable {
        case verification(id: String, code: String)
        case temporaryProof(phoneNumber: String, proof: String)
    }

    let proof: Proof

    init(_ proof: Proof) {
        self.proof = proof
        super.init(provider: AuthProviderID.phone.rawValue)
    }
}
