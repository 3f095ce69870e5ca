import Foundation
import GRDB
import HearthCore
import HearthStore

/// `LimitStore` on SQLite: rate-limit counters and cooldowns, one upsert each.
extension SQLiteAuthStore {
    public func incrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        return try await pool.write { db in
            try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        INSERT INTO counters (key, window_start, count) VALUES (?, ?, 1)
                        ON CONFLICT (key) DO UPDATE SET
                          count = CASE WHEN counters.window_start = excluded.window_start THEN counters.count + 1 ELSE 1 END,
                          window_start = excluded.window_start
                        RETURNING count
                        """), arguments: [key, start]) ?? 1
        }
    }

    public func counter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        return try await pointRead { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count FROM counters WHERE key = ? AND window_start = ?"),
                arguments: [key, start]) ?? 0
        }
    }

    public func claimInterval(_ key: String, seconds: Int, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        return try await pool.write { db in
            // The update applies only when the last event is old enough; otherwise nothing is returned.
            try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        INSERT INTO counters (key, window_start, count) VALUES (?, ?, 1)
                        ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = counters.count + 1
                        WHERE counters.window_start <= ?
                        RETURNING window_start
                        """), arguments: [key, nowMs, nowMs - Int64(seconds) * 1000]) != nil
        }
    }

    public func resetCounter(_ key: String) async throws {
        try await pool.write { db in
            try db.run("DELETE FROM counters WHERE key = ?", [key])
        }
    }

    public func decrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        try await pool.write { db in
            try db.run(
                "UPDATE counters SET count = count - 1 WHERE key = ? AND window_start = ? AND count > 0", [key, start])
        }
    }
}
