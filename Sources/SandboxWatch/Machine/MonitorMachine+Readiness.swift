/// Following files to ``FolderEvent/ready(_:)``.
///
/// A file is a candidate once it is closed after writing (`IN_CLOSE_WRITE`) or arrives whole
/// (renamed or linked into place, found by a scan). A candidate that stays quiet for the quiet period
/// is probed: if a process still has it open for writing (a writer that reopened it, or one that
/// created it and has not written yet) it goes back to waiting for a close; otherwise it is ready.
/// Any write in the meantime sends it back too, so a writer that reopens the file per chunk gives
/// one `ready`, and a writer that pauses with the file open gives none until it closes.
extension MonitorMachine {
    /// `IN_MODIFY`.
    mutating func wrote(_ key: Key, at now: Instant) -> [Action] {
        guard model.isDirectory(key) != true else { return [] }
        guard model.contains(key) else {
            // Its creation was missed (an overflow, or the name appeared during a scan).
            let actions = appeared(key, isDirectory: false, at: now)
            writes[key] = .writing
            return actions
        }
        switch writes[key] {
        case nil:
            writes[key] = .writing
            return [.emit(.modified(key))]
        case .settling, .probing:
            writes[key] = .writing
            return []
        case .writing:
            return []
        }
    }

    /// `IN_CLOSE_WRITE`.
    mutating func closedAfterWriting(_ key: Key, at now: Instant) -> [Action] {
        guard model.isDirectory(key) != true else { return [] }
        guard model.contains(key) else { return appeared(key, isDirectory: false, at: now) }
        writes[key] = .settling(now + configuration.quietPeriod)
        return []
    }

    /// `IN_ATTRIB` on a file: reported as modified unless the file is being written anyway.
    mutating func attributesChanged(_ key: Key) -> [Action] {
        guard model.isDirectory(key) == false, writes[key] == nil else { return [] }
        return [.emit(.modified(key))]
    }

    /// Candidates whose quiet period is over are probed (or, without readiness tracking, dropped).
    mutating func settle(at now: Instant) -> [Action] {
        var due: [(Instant, Key)] = []
        for case (let key, .settling(let deadline)) in writes where deadline <= now { due.append((deadline, key)) }
        due.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var actions: [Action] = []
        for (_, key) in due {
            if configuration.tracksReadiness {
                writes[key] = .probing
                actions.append(.probe(key))
            } else {
                writes[key] = nil
            }
        }
        return actions
    }

    /// The answer to ``Action/probe(_:)``.
    mutating func probed(_ key: Key, result: ProbeResult) -> [Action] {
        guard writes[key] == .probing else { return [] }
        switch result {
        case .noWriters:
            writes[key] = nil
            return model.contains(key) ? [.emit(.ready(key))] : []
        case .openForWriting:
            writes[key] = .writing  // its IN_CLOSE_WRITE will come
            return []
        case .gone:
            writes[key] = nil  // its IN_DELETE or IN_MOVED_FROM will come
            return []
        }
    }
}
