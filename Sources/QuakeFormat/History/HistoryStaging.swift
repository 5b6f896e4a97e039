import QuakeSupport
import Foundation
import Synchronization

/// The sections of a transaction being built, kept on disk instead of in memory: a load of
/// 100 M new events produces half a gigabyte of id lists, so each partition's section is
/// appended to a scratch file as soon as it is encoded, and only the section entries stay
/// in memory. ``HistoryFile/write(store:generation:committed:previous:files:staged:)`` then
/// copies the bodies into the transaction file in partition order, one section at a time.
///
/// Appending is safe from several threads.
package final class HistoryStaging: Sendable {
    package let path: String
    private let fd: Int32
    /// Per staged section: the partition ordinal it belongs to, its entry, and where its
    /// body lies in the scratch file (`offset` is the scratch offset until written); and the
    /// scratch file's size.
    private struct State {
        var staged: [(ordinal: Int, section: HistoryFile.Section)] = []
        var size = 0
    }
    private let state = Mutex(State())

    package init(path: String) throws(QuakeError) {
        self.path = path
        fd = try FileIO.open(path, O_CREAT | O_TRUNC | O_RDWR)
    }

    deinit { FileIO.close(fd) }

    /// Stages partition `ordinal`'s encoded changes.
    package func append(ordinal: Int, _ c: EncodedChanges) throws(QuakeError) {
        // the write stays under the lock: each body goes at the size the one before left
        try state.locked { (s) throws(QuakeError) in
            try FileIO.pwriteAll(fd, c.body, at: s.size, path: path)
            var section = c.section
            section.offset = s.size
            s.staged.append((ordinal, section))
            s.size += c.body.count
        }
    }

    /// Drops the sections staged for partition `ordinal` (their bytes stay in the scratch file,
    /// unreferenced): a partition staged early whose rows the merge then writes again.
    package func discard(ordinal: Int) {
        state.locked { $0.staged.removeAll { $0.ordinal == ordinal } }
    }

    /// Number of sections staged.
    package var count: Int { state.locked { $0.staged.count } }

    /// The staged sections in partition order, each with its scratch offset.
    package var sections: [HistoryFile.Section] {
        state.locked { s in s.staged.sorted { $0.ordinal < $1.ordinal }.map(\.section) }
    }

    /// The body of a section returned by ``sections``.
    package func body(_ s: HistoryFile.Section) throws(QuakeError) -> [UInt8] {
        try FileIO.preadExactly(fd, count: s.length, at: s.offset, path: path)
    }
}
