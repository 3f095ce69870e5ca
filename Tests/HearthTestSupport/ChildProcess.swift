import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program the tests start: the `hearth` binary, openssl, a Python SMTP sink, a PostgreSQL script.
///
/// Foundation's `Process` is not used because of how it can hang a test run. On Linux it learns of an exit when a
/// socket the child inherited closes, and its `Pipe`s are not close-on-exec. A child started by another test at the
/// same moment can inherit that socket or pipe by accident, or a script can leave a daemon holding it. Then
/// `waitUntilExit` or an end-of-output wait never returns. Here the child inherits nothing but its three standard
/// streams (every other descriptor is closed in it), our own pipe ends are close-on-exec, an exit is learnt from
/// `waitpid`, and every wait has a deadline.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    private let shared: Shared
    /// The write end of the child's standard input, when asked for; nil once closed.
    private let input: Mutex<Int32?>

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// What the reader thread and the waiters share; the thread holds this, not the process, so a process that is
    /// dropped is still cleaned up.
    private final class Shared: Sendable {
        struct State {
            var output: [UInt8] = []
            var outputClosed = false
            /// The exit status once reaped: the exit code, or 128 + the signal that ended it.
            var status: Int32?
        }
        let state = Mutex(State())
    }

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`; its standard output and error
    /// are collected together. `environment` replaces the inherited one when given. With `keepInput` the caller
    /// can write to its standard input and close it; otherwise it reads /dev/null.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, keepInput: Bool = false
    ) throws {
        let outputPipe = try Self.closeOnExecPipe()
        var inputPipe: (read: Int32, write: Int32)?
        if keepInput {
            do { inputPipe = try Self.closeOnExecPipe() } catch {
                close(outputPipe.read)
                close(outputPipe.write)
                throw error
            }
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let inputPipe {
            posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        // dup2 clears close-on-exec on the copy, so the child keeps its standard streams and nothing else.
        posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 2)
        Self.closeEverythingAbove2(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentStrings = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { environmentStrings?.forEach { free($0) } }

        var pid = pid_t()
        let spawned: Int32 =
            if let environmentStrings {
                environmentStrings.withUnsafeBufferPointer { envp in
                    posix_spawnp(&pid, executable, &actions, nil, argv, UnsafeMutablePointer(mutating: envp.baseAddress))
                }
            } else {
                posix_spawnp(&pid, executable, &actions, nil, argv, environ)
            }
        close(outputPipe.write)
        if let inputPipe { close(inputPipe.read) }
        guard spawned == 0 else {
            close(outputPipe.read)
            if let inputPipe { close(inputPipe.write) }
            throw Failure("could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        input = Mutex(inputPipe?.write)
        shared = Shared()

        // A thread of its own, not a cooperative one: the read blocks until the child and anything it started have
        // closed the pipe.
        let readEnd = outputPipe.read
        let shared = shared
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count > 0 {
                    shared.state.withLock { $0.output += buffer[0..<count] }
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            close(readEnd)
            shared.state.withLock { $0.outputClosed = true }
        }
    }

    deinit {
        closeInput()
        if reap(blocking: false) == nil {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
    }

    // MARK: State

    /// Everything written so far to standard output and error.
    public var output: String { shared.state.withLock { String(decoding: $0.output, as: UTF8.self) } }

    public var isRunning: Bool { reap(blocking: false) == nil }

    /// The exit code, or 128 + the signal that ended it; nil while it runs.
    public var terminationStatus: Int32? { reap(blocking: false) }

    /// Sends `signal`, unless the process has already been reaped (its pid may belong to another by then).
    public func signal(_ signal: Int32) {
        if reap(blocking: false) == nil { kill(pid, signal) }
    }

    /// Closes the child's standard input (a child that reads it sees the end).
    public func closeInput() {
        input.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    // MARK: Waiting

    /// Waits for the exit and returns its status; fails after `timeout`.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = reap(blocking: false) { return status }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw Failure("pid \(pid) did not exit within \(timeout); output: \(output)")
    }

    /// `waitForExit` for code that cannot suspend.
    @discardableResult
    public func waitForExitBlocking(timeout: Duration = .seconds(120)) throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = reap(blocking: false) { return status }
            usleep(5_000)
        }
        throw Failure("pid \(pid) did not exit within \(timeout); output: \(output)")
    }

    /// Waits until the output contains `text`; fails if the process exits first or after `timeout`.
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(60)) async throws {
        let found = try await waitForOutput(timeout: timeout) { $0.contains(text) ? true : nil }
        guard found == true else { throw Failure("no '\(text)' in: \(output)") }
    }

    /// Polls the output until `match` finds something in it; nil if the process exits (and its output ends) first
    /// or `timeout` passes.
    public func waitForOutput<T>(timeout: Duration = .seconds(60), _ match: (String) -> T?) async throws -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (text, closed) = shared.state.withLock { (String(decoding: $0.output, as: UTF8.self), $0.outputClosed) }
            if let found = match(text) { return found }
            if closed && !isRunning { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Everything the process wrote, once it has exited and its output has ended. A daemon it left behind may hold
    /// the output open; after a short grace the text so far is returned.
    public func remainingOutput(timeout: Duration = .seconds(60)) async throws -> String {
        try await waitForExit(timeout: timeout)
        let grace = ContinuousClock.now + .seconds(5)
        while !shared.state.withLock({ $0.outputClosed }), ContinuousClock.now < grace {
            try await Task.sleep(for: .milliseconds(10))
        }
        return output
    }

    /// Runs a program to completion: its status and combined output. Fails after `timeout`. The wait polls with
    /// `Task.sleep`: a test blocked on a child would hold one of the few cooperative threads (two on a 2-core
    /// machine) that every other test needs, and stall them all.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration = .seconds(300)
    ) async throws -> (status: Int32, output: String) {
        let child = try ChildProcess(executable, arguments, environment: environment)
        let status = try await child.waitForExit(timeout: timeout)
        let grace = ContinuousClock.now + .seconds(5)
        while !child.shared.state.withLock({ $0.outputClosed }), ContinuousClock.now < grace {
            try await Task.sleep(for: .milliseconds(2))
        }
        return (status, child.output)
    }

    /// `run` for code that cannot suspend (a trait's condition, a `defer`); keep it to short programs.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], timeout: Duration = .seconds(120)
    ) throws -> (status: Int32, output: String) {
        let child = try ChildProcess(executable, arguments)
        let status = try child.waitForExitBlocking(timeout: timeout)
        let grace = ContinuousClock.now + .seconds(5)
        while !child.shared.state.withLock({ $0.outputClosed }), ContinuousClock.now < grace { usleep(2_000) }
        return (status, child.output)
    }

    // MARK: Plumbing

    /// Reaps the child if it has exited (or waits for it with `blocking`) and remembers its status.
    private func reap(blocking: Bool) -> Int32? {
        shared.state.withLock { state in
            if let status = state.status { return status }
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &raw, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
            guard result == pid else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            let status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            state.status = status
            return status
        }
    }

    private static func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
        // A tiny window before these are set; every spawn here closes inherited descriptors anyway.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Swift's Glibc module does not import
    /// it) closes every descriptor from 3 up in the child. Without it, each descriptor open now is closed by name.
    private static func closeEverythingAbove2(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, 3) == 0 { return }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}

/// Polls `condition` until it holds; fails with `description` after `timeout` rather than hanging the run.
public func waitUntil(
    _ description: String, timeout: Duration = .seconds(60), _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw ChildProcess.Failure("gave up waiting: \(description)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A one-way switch tasks share: set once, read from anywhere.
public final class Flag: Sendable {
    private let value = Mutex(false)
    public init() {}
    public func set() { value.withLock { $0 = true } }
    public var isSet: Bool { value.withLock { $0 } }
}
