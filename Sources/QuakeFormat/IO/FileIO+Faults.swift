import QuakeSupport
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Synchronization

extension FileIO {
    /// Faults planned into the I/O layer's system calls, for tests: a full disk, an I/O error, an
    /// exceeded quota or a short write, on the calls that write files under one directory, without
    /// root and without a small file system. Every call of ``SystemCall`` that creates, writes,
    /// flushes, renames, truncates or removes a file asks here first.
    ///
    /// Nothing is planned unless a test arms a ``Plan`` with ``inject(_:during:)`` (or
    /// ``trial(_:during:)``): a system call then costs one relaxed atomic load more, with no lock
    /// and no allocation. The plan is process-wide, so arming it serialises the tests that do (a
    /// second one waits for the first to end), and a plan matches only paths under its directory,
    /// so that tests running meanwhile and writing elsewhere are unaffected. Arming is not
    /// reentrant: `body` must not arm another plan.
    ///
    /// ```swift
    /// // the third write of a file under `dir` finds the disk full
    /// let plan = FileIO.Faults.Plan(under: dir, FileIO.Faults.Operation.writes, .nth(3), .fail(ENOSPC))
    /// #expect(throws: QuakeError.self) { try FileIO.Faults.inject(plan) { try store.load(files) } }
    /// ```
    package enum Faults {
        /// A kind of system call a plan can fault.
        package enum Operation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
            /// `open(2)` for writing: with `O_WRONLY`, `O_RDWR`, `O_CREAT` or `O_TRUNC`.
            case open
            /// `write(2)`.
            case write
            /// `pwrite(2)`.
            case pwrite
            /// `fsync(2)` (`F_FULLFSYNC` on Darwin), and `syncfs(2)` (`sync_volume_np` on Darwin) of
            /// the file system holding the path.
            case fsync
            /// `rename(2)`: matched by either path.
            case rename
            /// `ftruncate(2)`.
            case truncate
            /// `mkdir(2)`.
            case mkdir
            /// `unlink(2)` and `rmdir(2)`.
            case unlink

            /// `write` and `pwrite`.
            package static let writes: Set<Operation> = [.write, .pwrite]

            package var description: String { rawValue }
        }

        /// What a planned call does instead of its work.
        package enum Effect: Sendable, Equatable {
            /// Fails with this `errno` (`ENOSPC`, `EIO`, `EDQUOT`...), having done nothing.
            /// `EINTR` makes the layer retry the call, so it is planned for one call (``Calls/nth(_:)``) only.
            case fail(Int32)
            /// A write writes at most this many bytes, and always fewer than it was asked (a write of
            /// one byte is left whole); other calls are not affected.
            case shortWrite(atMost: Int)
            /// A write writes nothing and returns 0, as a device that takes no more bytes.
            case writeNothing
            /// Nothing: the plan only counts (and logs) the calls it matches.
            case none
        }

        /// Which of the calls a plan matches it faults, counting from 1 in the order they are made.
        package enum Calls: Sendable, Equatable {
            /// Only the `n`th.
            case nth(Int)
            /// The `n`th and every one after it: a disk that stays full.
            case from(Int)
            /// Every one.
            case every

            func includes(_ k: Int) -> Bool {
                switch self {
                case .nth(let nth): k == nth
                case .from(let first): k >= first
                case .every: true
                }
            }
        }

        /// What to fault: the calls of ``operations`` on paths under ``directory`` (and accepted by
        /// ``paths``), which of them (``calls``), and how (``effect``).
        package struct Plan: Sendable {
            /// The directory whose paths (itself included) the plan matches.
            package let directory: String
            package var operations: Set<Operation>
            package var calls: Calls
            package var effect: Effect
            /// A further test of a path under ``directory``: true to match it.
            package var paths: @Sendable (String) -> Bool

            /// A plan for `operations` on paths under `directory`.
            package init(under directory: String, _ operations: Set<Operation>, _ calls: Calls, _ effect: Effect,
                         paths: @escaping @Sendable (String) -> Bool = { _ in true }) {
                let once: Bool
                if case .nth = calls { once = true } else { once = false }
                precondition(effect != .fail(EINTR) || once, "a call that keeps failing with EINTR is retried forever")
                var dir = directory
                while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
                self.directory = dir
                self.operations = operations
                self.calls = calls
                self.effect = effect
                self.paths = paths
            }

            /// A plan that faults nothing and counts every call of `operations` under `directory`.
            package static func counting(under directory: String,
                                         _ operations: Set<Operation> = Set(Operation.allCases)) -> Plan {
                Plan(under: directory, operations, .every, .none)
            }

            /// Whether the plan matches `path`: it is ``directory`` or under it, and ``paths`` accepts it.
            package func matches(_ path: String) -> Bool {
                guard path == directory || path.hasPrefix(directory == "/" ? "/" : directory + "/") else {
                    return false
                }
                return paths(path)
            }
        }

        /// One call a plan matched.
        package struct Call: Sendable, Equatable, CustomStringConvertible {
            package var operation: Operation
            /// The path the call was made on (for a rename, the new name).
            package var path: String
            /// Its place among the calls the plan matched, from 1.
            package var ordinal: Int
            /// Whether the plan faulted it.
            package var faulted: Bool

            package var description: String { "\(ordinal): \(operation) \(path)\(faulted ? " (faulted)" : "")" }
        }

        /// What a plan met while it was armed.
        package struct Report: Sendable, Equatable {
            /// Every call the plan matched, in the order they were made.
            package var calls: [Call] = []

            /// The calls the plan faulted.
            package var injected: [Call] { calls.filter(\.faulted) }

            /// How many calls of `operations` the plan matched.
            package func count(_ operations: Set<Operation>) -> Int {
                calls.count(where: { operations.contains($0.operation) })
            }

            /// How many calls of `operation` the plan matched.
            package func count(_ operation: Operation) -> Int { count([operation]) }
        }

        /// What ``trial(_:during:)`` returns: the body's result and the plan's report.
        package struct Trial<T, E: Error> {
            package var result: Result<T, E>
            package var report: Report
        }

        /// What a planned call does, as ``SystemCall`` applies it.
        enum Planned: Sendable, Equatable {
            /// Fail with this errno.
            case fail(Int32)
            /// Write this many bytes instead of those asked (0: none, returning 0).
            case write(Int)
        }

        private struct State: Sendable {
            var plan: Plan?
            var report = Report()
        }

        /// Whether a plan is armed: the one load a system call makes when none is.
        private static let armed = Atomic<Bool>(false)
        /// The armed plan and its report.
        private static let state = Mutex(State())
        /// Held while a plan is armed: serialises the tests that arm one.
        private static let scope = Mutex(())

        /// Runs `body` with `plan` armed and returns what it returns, or throws what it throws.
        /// Waits while another plan is armed.
        package static func inject<T, E: Error>(_ plan: Plan, during body: () throws(E) -> T) throws(E) -> T {
            try trial(plan, during: body).result.get()
        }

        /// Runs `body` with `plan` armed; returns its result, or the error it threw, with the calls
        /// the plan matched and faulted. Waits while another plan is armed.
        package static func trial<T, E: Error>(_ plan: Plan, during body: () throws(E) -> T) -> Trial<T, E> {
            var outcome: Trial<T, E>?
            scope.locked { _ in
                state.locked { $0 = State(plan: plan) }
                armed.store(true, ordering: .sequentiallyConsistent)
                let result = Result<T, E> { () throws(E) -> T in try body() }
                armed.store(false, ordering: .sequentiallyConsistent)
                let report = state.locked { s -> Report in
                    let report = s.report
                    s = State()
                    return report
                }
                outcome = Trial(result: result, report: report)
            }
            return outcome!
        }

        /// Whether a plan is armed now.
        package static var isArmed: Bool { armed.load(ordering: .relaxed) }

        /// What the armed plan does to a call of `operation` on `path` (or `other`, the old name of
        /// a rename) asking to write `asking` bytes; nil to make the call as asked.
        @inline(__always)
        static func planned(_ operation: Operation, _ path: String, or other: String? = nil,
                            asking: Int = 0) -> Planned? {
            guard armed.load(ordering: .relaxed) else { return nil }
            return consult(operation, path, other, asking)
        }

        @inline(never)
        private static func consult(_ operation: Operation, _ path: String, _ other: String?,
                                    _ asking: Int) -> Planned? {
            state.locked { s -> Planned? in
                guard let plan = s.plan, plan.operations.contains(operation),
                      plan.matches(path) || (other.map(plan.matches) ?? false) else { return nil }
                let ordinal = s.report.calls.count + 1
                var planned: Planned?
                if plan.calls.includes(ordinal) {
                    let write = Operation.writes.contains(operation)
                    switch plan.effect {
                    case .fail(let code): planned = .fail(code)
                    case .shortWrite(let most) where write && asking > 1:
                        planned = .write(max(1, min(most, asking - 1)))
                    case .writeNothing where write && asking > 0: planned = .write(0)
                    case .shortWrite, .writeNothing, .none: planned = nil
                    }
                }
                s.report.calls.append(Call(operation: operation, path: path, ordinal: ordinal, faulted: planned != nil))
                return planned
            }
        }
    }
}
