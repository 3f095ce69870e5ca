import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `LimitStore` on PostgreSQL: rate-limit counters and cooldowns, one upsert each (`ON CONFLICT` locks the row).
extension PostgresAuthStore {
    public func incrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        // One statement: ON CONFLICT locks the existing row, so concurrent increments never lose a count.
        let rows = try await query(
            """
            INSERT INTO counters (key, window_start, count) VALUES (\(key), \(start), 1)
            ON CONFLICT (key) DO UPDATE SET
              count = CASE WHEN counters.window_start = excluded.window_start THEN counters.count + 1 ELSE 1 END,
              window_start = excluded.window_start
            RETURNING count
            """)
        return try rows.first?.decode(Int.self) ?? 1
    }

    public func counter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        return try await query("SELECT count FROM counters WHERE key = \(key) AND window_start = \(start)")
            .first?.decode(Int.self) ?? 0
    }

    public func claimInterval(_ key: String, seconds: Int, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        let cutoff = nowMs - Int64(seconds) * 1000
        // The update applies only when the last event is old enough; otherwise no row is returned.
        return try await !query(
            """
            INSERT INTO counters (key, window_start, count) VALUES (\(key), \(nowMs), 1)
            ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = counters.count + 1
            WHERE counters.window_start <= \(cutoff)
            RETURNING window_start
            """
        ).isEmpty
    }

    public func resetCounter(_ key: String) async throws {
        try await query("DELETE FROM counters WHERE key = \(key)")
    }

    public func decrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        try await query(
            "UPDATE counters SET count = count - 1 WHERE key = \(key) AND window_start = \(start) AND count > 0")
    }
}
