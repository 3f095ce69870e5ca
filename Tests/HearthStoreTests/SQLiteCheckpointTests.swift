import Dispatch
import Foundation
import GRDB
import Testing

@testable import HearthSQLite

/// The SQLite store copies its WAL into the database file on a queue of its own (`WALCheckpointer`), and its writer
/// checkpoints itself only when the log has grown past `inlinePages`, which keeps the log bounded when the queue
/// cannot keep up.
@Suite("SQLite checkpoints", .timeLimit(.minutes(3)))
struct SQLiteCheckpointTests {
    /// The size of a file (0 when there is none).
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// Commits `pages` pages of filler, ten rows of one page each per commit.
    static func fill(_ store: SQLiteAuthStore, pages: Int) async throws {
        try await store.pool.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS filler (b BLOB)") }
        for _ in 0..<(pages / 10) {
            try await store.pool.write { db in
                for _ in 0..<10 { try db.execute(sql: "INSERT INTO filler (b) VALUES (zeroblob(3500))") }
            }
        }
    }

    @Test func theLogIsCopiedIntoTheDatabaseFileOffTheWriter() async throws {
        try await withSQLiteStore { store, path in
            let before = Self.size(path)
            // Past the checkpointer's 1,000 pages (frames: a page written twice counts twice), short of the writer's
            // own checkpoint at 4,000. The first 1,000 frames hold over 600 distinct new pages.
            try await Self.fill(store, pages: 1_500)
            let copied = before + 600 * 4096
            let deadline = ContinuousClock.now + .seconds(60)
            while Self.size(path) < copied, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(Self.size(path) >= copied, "the log was not copied into the database file")
        }
    }

    @Test func theWriterCheckpointsItselfWhenTheQueueCannotKeepUp() async throws {
        try await withSQLiteStore { store, path in
            let release = DispatchSemaphore(value: 0)
            store.checkpointer.queue.async { release.wait() }
            try await Self.fill(store, pages: 6_000)
            release.signal()
            // The log file keeps the largest size it reached: a frame is a page and its 24-byte header.
            let frames = (Self.size(path + "-wal") - 32) / (4096 + 24)
            #expect(frames > 0)
            #expect(frames <= Int(WALCheckpointer.inlinePages) + 20, "the log grew to \(frames) pages")
        }
    }
}
