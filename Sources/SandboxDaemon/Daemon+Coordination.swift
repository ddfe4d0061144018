import Logging
import Sandbox
import SandboxCore

/// The daemon's part in the lifecycle operations on an app's containers (``/Sandbox/CoordinationPolicy``'s
/// `daemon` column): it is registered (``AppPresence``) for every app it has sessions or queued
/// events for, and
///
/// - before an uninstall, a restore or a restart (with transfers running) it suspends the app's
///   sessions (``SessionHost/suspend()``: transfers paused, a file being moved into the container
///   moved to its end) and refuses new ones, then says it let go;
/// - after a completed uninstall it forgets the app: its tasks, events, relaunch command,
///   sessions and connections (a reinstall under the same identifier starts clean);
/// - after a completed restore it opens the NEW container and continues the app's tasks there.
///   Their partial files were in the replaced container's `Library/Caches` (which no snapshot
///   holds): each task starts again from the daemon's record of it, under the same identifier,
///   and its file lands in the restored container;
/// - after anything else (a restart, an operation that failed) it continues the tasks in place,
///   from their partial files.
extension Daemon {
    /// Registers the daemon as a user of `app`'s containers, unless it is already.
    func present(_ app: String) {
        guard presences[app] == nil, !stopping else { return }
        do throws(SandboxError) {
            presences[app] = try AppPresence(app: try AppIdentifier(app), daemon: self)
        } catch {
            logger.error("sandboxd could not register as a user of the containers of \(app): \(error)")
        }
    }

    /// Handles one notice of an operation on `app`'s containers; the presenter answers for the
    /// daemon when it returns (``AppPresence``).
    func coordinate(_ notice: ContainerPresenter.Notice, of app: String) async {
        guard presences[app] != nil else { return }
        switch notice.phase {
        case .will:
            guard notice.response == .relinquish else { return }
            let sessions = hosts.filter { $0.key.app == app }
            let busy = sessions.values.contains { $0.activeTaskCount > 0 }
            if notice.operation.replacesContainer || busy {
                suspended[app] = notice.operation
                for host in sessions.values { await host.suspend() }
                logger.info("\(app): sessions suspended for \(notice.operation.rawValue)")
            }
        case .did:
            guard suspended.removeValue(forKey: app) != nil else { return }
            let outcome = notice.outcome ?? .failed
            switch (notice.operation, outcome) {
            case (.uninstall, .completed): await forget(app)
            case (.restore, .completed): await reopen(app)
            default: resumeInPlace(app)
            }
        }
    }

    /// Forgets everything of the uninstalled `app`: sessions, connections, queued events, tasks,
    /// relaunch commands, and the registration.
    private func forget(_ app: String) async {
        let sessions = hosts.filter { $0.key.app == app }
        for (key, host) in sessions {
            hosts[key] = nil
            await host.close()
        }
        for key in attached.keys where key.app == app { attached[key] = nil }
        for client in clients(of: app) { client.close() }
        presences.removeValue(forKey: app)?.close()
        queue.writes.commit(
            "forget an uninstalled app", { db in try EventQueue.forget(db, app: app) },
            then: { [logger] result in
                switch result {
                case .success: logger.info("\(app) uninstalled: its sessions, tasks and events are gone")
                case .failure(let error):
                    logger.error("The tasks and events of the uninstalled \(app) could not be removed: \(error)")
                }
            })
    }

    /// Opens the app's sessions again in its restored container and continues their tasks there.
    private func reopen(_ app: String) async {
        let sessions = hosts.filter { $0.key.app == app }
        for (key, host) in sessions {
            hosts[key] = nil
            await host.close()
        }
        for key in sessions.keys {
            do throws(SandboxError) {
                try host(for: key)
            } catch {
                logger.error("The session \(key) could not be opened in the restored container: \(error)")
            }
        }
        logger.info("\(app) restored: its sessions continue in the new container")
    }

    /// Continues the app's suspended tasks where they were.
    private func resumeInPlace(_ app: String) {
        for (key, host) in hosts where key.app == app {
            do throws(SandboxError) {
                try host.resumeInPlace()
            } catch {
                logger.error("The tasks of \(key) could not be continued: \(error)")
            }
        }
    }
}
