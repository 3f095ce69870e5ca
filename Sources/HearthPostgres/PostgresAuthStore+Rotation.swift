import Foundation
import HearthStore
import PostgresNIO

/// Group commit for refresh-token rotation, as on SQLite: the rotations of concurrent refreshes are applied in one
/// statement and one transaction (`RotateRefreshTokens`), and each is answered only after it has committed, so an
/// answered refresh survives `kill -9`.
///
/// One statement per refresh cost a pooled connection, a round trip and a commit each, on the cores that sign the
/// tokens; batched, those fixed costs are shared. One batch is written at a time; what arrives meanwhile is the next
/// batch. Two uses of one token never share a batch (the later waits for the next), so they are applied one after
/// the other, as they would be in two transactions. Another server's batch may hold the same tokens at once: the
/// row locks order the two (the later sees the first's commit), and both lock in hash order, so they cannot
/// deadlock over them.
extension PostgresAuthStore {
    public func rotateRefreshToken(_ r: RefreshRotation) async throws -> RefreshRotationOutcome {
        try await withCheckedThrowingContinuation { answer in
            if rotations.enqueue(r, answer: answer) { Task { await self.writeRotations() } }
        }
    }

    /// Writes what is waiting, then what arrived meanwhile, until nothing is left.
    private func writeRotations() async {
        while true {
            let batch = rotations.nextBatch()
            if batch.isEmpty { return }
            let outcomes = await rotate(batch.map(\.item))
            for (waiting, outcome) in zip(batch, outcomes) { waiting.resume(with: outcome) }
        }
    }

    /// Applies `batch` in one transaction; the outcome of each rotation, in order.
    func rotate(_ batch: [RefreshRotation]) async -> [Result<RefreshRotationOutcome, any Error>] {
        do {
            var presented: [Int64: PostgresRandomAccessRow] = [:]
            for row in try await execute(RotateRefreshTokens(rotations: batch)) {
                let row = row.makeRandomAccess()
                presented[try row["ord"].decode(Int64.self)] = row
            }
            return batch.enumerated().map { index, rotation in
                Result { try Self.outcome(of: rotation, presented: presented[Int64(index + 1)]) }
            }
        } catch {
            // The batch failed as a whole and changed nothing (a deadlock with another server's batch, say): each
            // rotation again on its own, so that only a failing one fails.
            guard batch.count > 1, !(error is StoreUnavailable) else { return batch.map { _ in .failure(error) } }
            var outcomes: [Result<RefreshRotationOutcome, any Error>] = []
            for rotation in batch { outcomes += await rotate([rotation]) }
            return outcomes
        }
    }

    /// The rule's outcome for `rotation` on the row the statement locked for it (nil: no such token in the project),
    /// after checking that the statement decided (and so wrote) what the rule decides.
    static func outcome(of rotation: RefreshRotation, presented row: PostgresRandomAccessRow?) throws
        -> RefreshRotationOutcome
    {
        let presented = try row.map { row in
            PresentedRefreshToken(
                family: try family(from: row), rotatedAtMilliseconds: try row["rotated_at"].decode(Int64?.self),
                sealedSuccessor: try row["sealed_successor"].decode(Data?.self).map(Array.init))
        }
        let outcome = rotation.outcome(for: presented)
        let written = try row.map { try $0["decision"].decode(String.self) } ?? RefreshRotationDecision.unknown.rawValue
        guard written == outcome.decision.rawValue else {
            throw RotationRuleMismatch(statement: written, rule: outcome.decision)
        }
        return outcome
    }
}

/// The rotation statement decided otherwise than `RefreshRotation.decision(for:)`: a defect in one of the two,
/// answered as an internal error rather than with an outcome that does not match what was written.
struct RotationRuleMismatch: Error, CustomStringConvertible {
    let statement: String
    let rule: RefreshRotationDecision

    var description: String {
        "the refresh rotation statement decided \(statement) where the rule decides \(rule.rawValue)"
    }
}
