import Foundation
import HearthCore
import HearthStore
import Testing

/// `RefreshRotation.decision(for:)` on its own: every branch of the rule, with no database.
@Suite("Refresh rotation rule")
struct RefreshRotationRuleTests {
    static let family = Fixture.family()
    static let rotatedAt = Fixture.t0.millisecondsSince1970

    static func presented(
        revoked: Bool = false, rotatedAt: Int64? = nil, sealed: [UInt8]? = nil
    ) -> PresentedRefreshToken {
        var family = Self.family
        if revoked {
            family.revokedAt = Fixture.t(-1)
            family.revokeReason = .revoked
        }
        return PresentedRefreshToken(family: family, rotatedAtMilliseconds: rotatedAt, sealedSuccessor: sealed)
    }

    static func rotation(at seconds: Int = 0, grace: Int = 30, rotate: Bool = true) -> RefreshRotation {
        Fixture.rotation("t1", to: "t2", at: Fixture.t(seconds), grace: grace, rotate: rotate)
    }

    @Test func anUnknownTokenIsUnknown() {
        #expect(Self.rotation().decision(for: nil) == .unknown)
        #expect(Self.rotation(rotate: false).outcome(for: nil) == .unknown)
    }

    @Test func aRevokedFamilyIsRevokedWhateverTheToken() {
        for token in [
            Self.presented(revoked: true), Self.presented(revoked: true, rotatedAt: Self.rotatedAt, sealed: [1]),
        ] {
            #expect(Self.rotation().decision(for: token) == .revoked)
            #expect(Self.rotation(rotate: false).decision(for: token) == .revoked)
            #expect(Self.rotation().outcome(for: token) == .revoked(token.family))
        }
    }

    @Test func withoutRotationTheTokenIsKept() {
        let current = Self.presented()
        let used = Self.presented(rotatedAt: Self.rotatedAt, sealed: [1])
        #expect(Self.rotation(rotate: false).outcome(for: current) == .kept(Self.family))
        // Rotation switched off later: an old token is still a token of a live session.
        #expect(Self.rotation(at: 3600, rotate: false).decision(for: used) == .kept)
    }

    @Test func theCurrentTokenRotates() {
        #expect(Self.rotation().outcome(for: Self.presented()) == .rotated(Self.family))
        #expect(Self.rotation(at: 86_400).decision(for: Self.presented()) == .rotated)
    }

    @Test func aUseWithinTheGraceGetsTheSealedSuccessor() {
        let used = Self.presented(rotatedAt: Self.rotatedAt, sealed: Fixture.sealed("t2"))
        #expect(
            Self.rotation(at: 0).outcome(for: used)
                == .alreadyRotated(Self.family, sealedSuccessor: Fixture.sealed("t2")))
        // The window includes its last millisecond.
        #expect(Self.rotation(at: 30).decision(for: used) == .alreadyRotated)
        #expect(Self.rotation(at: 5, grace: 5).decision(for: used) == .alreadyRotated)
    }

    @Test func aUseAfterTheGraceIsReuseAndRevokesTheFamily() {
        let used = Self.presented(rotatedAt: Self.rotatedAt, sealed: Fixture.sealed("t2"))
        let late = Self.rotation(at: 31)
        var revoked = Self.family
        revoked.revokedAt = late.now
        revoked.revokeReason = .reuseDetected
        #expect(late.outcome(for: used) == .reuseDetected(revoked))
        #expect(Self.rotation(at: 1, grace: 0).decision(for: used) == .reuseDetected)
        // One millisecond past the window.
        var justAfter = Self.rotation(at: 30)
        justAfter.now = Date(millisecondsSince1970: Self.rotatedAt + 30_001)
        #expect(justAfter.decision(for: used) == .reuseDetected)
    }

    @Test func aUsedTokenWithoutItsSealedSuccessorIsReuseEvenWithinTheGrace() {
        let used = Self.presented(rotatedAt: Self.rotatedAt, sealed: nil)
        #expect(Self.rotation(at: 1).decision(for: used) == .reuseDetected)
    }

    @Test func eachOutcomeNamesTheDecisionItCameFrom() {
        let tokens: [PresentedRefreshToken?] = [
            nil, Self.presented(revoked: true), Self.presented(),
            Self.presented(rotatedAt: Self.rotatedAt, sealed: [1]),
        ]
        var seen = Set<RefreshRotationDecision>()
        for token in tokens {
            for rotation in [Self.rotation(), Self.rotation(at: 60), Self.rotation(rotate: false)] {
                let decision = rotation.decision(for: token)
                #expect(rotation.outcome(for: token).decision == decision)
                seen.insert(decision)
            }
        }
        #expect(seen == Set(RefreshRotationDecision.allCases))
    }
}
