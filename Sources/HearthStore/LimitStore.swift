import Foundation
import HearthCore

/// Limits: the counters behind rate limits and cooldowns, shared by every server on the database.
public protocol LimitStore: Sendable {
    /// Adds one to the fixed-window counter `key` and returns its value in the current window.
    func incrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int

    /// The counter's value in the current window, without changing it.
    func counter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int

    func resetCounter(_ key: String) async throws

    /// Takes one back from the counter `key` if it is still in the current window and above zero: the undo of an
    /// `incrementCounter` that reserved an attempt which then did not count (a correct password).
    func decrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws

    /// Records an event under `key` unless the last one recorded was less than `seconds` ago; returns
    /// whether it was recorded. A sliding cooldown, exact where fixed windows are not.
    func claimInterval(_ key: String, seconds: Int, now: Date) async throws -> Bool
}
