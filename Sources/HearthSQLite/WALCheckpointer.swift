import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Checkpoints the SQLite store's WAL on a queue of its own, so that the writer does not wait for the disk.
///
/// SQLite's automatic checkpoint runs inside the commit that took the log past 1,000 pages, on the committing
/// connection: there the single writer synced the log and the database file (tens of milliseconds on a virtual
/// disk, a few times a second under refresh load) while every request waiting for a write waited with it, and the
/// cores idled (refresh served 6% more on tmpfs, whose sync is free). The writer's WAL hook now only asks for a
/// checkpoint, and a PASSIVE one (it waits for no reader and no writer) runs on this object's connection.
///
/// SQLite restarts the log from its start only once a checkpoint has copied all of it, which a checkpoint that runs
/// beside commits may never do under a load without pauses: past `inlinePages` the writer checkpoints itself,
/// inside its commit, as SQLite's own hook does at 1,000, so the file stays bounded.
final class WALCheckpointer: Sendable {
    static let backgroundPages: Int32 = 1000
    static let inlinePages: Int32 = 4000

    private let path: String
    /// Runs the checkpoints, one at a time (internal: a test holds it to see the writer's own checkpoint).
    let queue = DispatchQueue(label: "hearth.sqlite.checkpoint", qos: .utility)
    /// Set while a checkpoint is queued and not yet started: commits in between ask for nothing more.
    private let queued = Atomic<Bool>(false)
    private let askedAt = Atomic<Int32>(0)
    /// This object's connection, opened at its first checkpoint.
    private let connection = Mutex<Connection>(.unopened)

    private enum Connection: @unchecked Sendable {
        case unopened
        case open(OpaquePointer)
        case closed
    }

    init(path: String) {
        self.path = path
    }

    /// Installs the hook on the writer's connection. The hook's context is not retained: the caller keeps this
    /// object alive as long as the connection (the pool's `prepareDatabase` closure holds it, and every connection
    /// holds its configuration until after it has closed).
    func watch(_ db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by the writer only, after each commit.
    fileprivate func logGrew(to pages: Int32, on db: OpaquePointer?, name: UnsafePointer<CChar>?) {
        // The log's size when a checkpoint was last asked for: a log that a checkpoint has copied but that was not
        // restarted is asked for again only after another `backgroundPages`, not after every commit.
        var asked = askedAt.load(ordering: .relaxed)
        if pages < asked { asked = 0 }  // restarted since
        if pages >= Self.inlinePages {
            sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            askedAt.store(0, ordering: .relaxed)
        } else if pages - asked >= Self.backgroundPages {
            askedAt.store(pages, ordering: .relaxed)
            guard !queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async {
                self.queued.store(false, ordering: .releasing)
                self.checkpoint()
            }
        }
    }

    /// A passive checkpoint on this object's connection. A failure (another process checkpointing, a disk error)
    /// leaves the log as it was, to be copied by the next checkpoint or the writer's.
    private func checkpoint() {
        connection.withLock { connection in
            if case .unopened = connection {
                var database: OpaquePointer?
                // A connection takes part in the WAL only once it has read the database: before that a checkpoint
                // on it does nothing.
                if sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                    let database, sqlite3_exec(database, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK
                {
                    connection = .open(database)
                } else {
                    sqlite3_close_v2(database)
                    return
                }
            }
            guard case .open(let database) = connection else { return }
            sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }

    /// Closes the connection, after a checkpoint under way; later requests do nothing.
    func close() {
        connection.withLock { connection in
            if case .open(let database) = connection { sqlite3_close_v2(database) }
            connection = .closed
        }
    }

    deinit { close() }
}

/// `sqlite3_wal_hook`'s callback, called on the writer's connection after each commit with the log's size in pages.
private let walHook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 =
    { context, db, name, pages in
        if let context {
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().logGrew(to: pages, on: db, name: name)
        }
        return SQLITE_OK
    }
