import QuakeSupport

/// Misses of one key merged: when many requests for the same answer arrive at once (a page that
/// many people open just after a commit), one makes it and the others wait for it, instead of
/// each reading and writing the same rows.
extension ResponseCache {
    /// What a request does about its key.
    package enum Turn: Sendable {
        /// Send this kept answer.
        case kept(Answer)
        /// Make the answer. When `first`, this request is the one others wait for: it calls
        /// ``made(_:)`` once when done, whether it kept the answer or not.
        case make(first: Bool)
    }

    /// The answer kept for `key`; or, while another request is making it, that answer once it is
    /// kept, waiting at most `patience` (by default ``patience``: a slow client can hold its
    /// maker back); or `.make`.
    /// A waiter whose maker kept nothing (too large, failed, cut off) makes its own.
    /// - Complexity: O(1), and O(waiters of `key`) when a wait ends by `patience`.
    package func turn(_ key: Key, patience: Duration? = nil) async -> Turn {
        let patience = patience ?? self.patience
        enum First { case kept(Answer), lead, alone, wait }
        let first: First = state.locked { locked in
            locked.clock += 1
            if let hit = locked.answers[key] {
                locked.answers[key] = (hit.answer, locked.clock)
                locked.hits += 1
                return .kept(hit.answer)
            }
            guard capacity > 0 else {
                locked.misses += 1
                return .alone
            }
            if locked.making[key] == nil {
                locked.making[key] = []
                locked.misses += 1
                return .lead
            }
            return .wait
        }
        switch first {
        case .kept(let answer): return .kept(answer)
        case .lead: return .make(first: true)
        case .alone: return .make(first: false)
        case .wait: break
        }
        let got: Answer? = await withCheckedContinuation { (continuation: CheckedContinuation<Answer?, Never>) in
            let id: UInt64? = state.locked { locked in
                // the maker may have finished between the two locks: then read what it kept
                guard locked.making[key] != nil else { return nil }
                locked.waiters &+= 1
                locked.making[key]?.append(Waiter(id: locked.waiters, resume: continuation))
                return locked.waiters
            }
            guard let id else {
                continuation.resume(returning: state.locked { $0.answers[key]?.answer })
                return
            }
            Task {
                try? await Task.sleep(for: patience)
                self.giveUp(key, id)
            }
        }
        state.locked { locked in
            if got != nil { locked.hits += 1 } else { locked.misses += 1 }
        }
        return got.map { .kept($0) } ?? .make(first: false)
    }

    /// The end of the making of `key`'s answer (after ``keep(_:_:)``, when it was kept): the
    /// requests waiting for it get it, or make their own.
    package func made(_ key: Key) {
        let (waiting, answer): ([Waiter], Answer?) = state.locked { locked in
            (locked.making.removeValue(forKey: key) ?? [], locked.answers[key]?.answer)
        }
        for w in waiting { w.resume.resume(returning: answer) }
    }

    /// A wait that ran out of patience: that request makes its own answer.
    private func giveUp(_ key: Key, _ id: UInt64) {
        let waiter: Waiter? = state.locked { locked in
            guard let index = locked.making[key]?.firstIndex(where: { $0.id == id }) else { return nil }
            return locked.making[key]?.remove(at: index)
        }
        waiter?.resume.resume(returning: nil)
    }

    /// Requests waiting now for an answer another is making.
    package var waiting: Int { state.locked { $0.making.values.reduce(0) { $0 + $1.count } } }
}
