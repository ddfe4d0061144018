import Foundation
import Sandbox

extension DownloadSession {
    /// Brings the checkpoint up to date after the previous process ended: unfinished tasks become
    /// `interrupted` failures with resume data (reported on the event stream and to the delegate),
    /// hand-overs cut short are finished, and files no task owns are deleted.
    ///
    /// - Throws: the core's code when a partial file to hand over cannot be examined or moved.
    func recover() throws(SandboxError) {
        for record in store.records {
            switch record.phase {
            case .active:
                let error = SandboxError(
                    .interrupted, "The download of \(record.originalURL) was interrupted when its process ended.",
                    url: record.originalURL)
                let task = DownloadTask(
                    identifier: record.id, request: try record.request(), session: self,
                    machine: DownloadTaskMachine(completed: .failed))
                try reportRecovered(task, record: record, error: error)
            case .finishing(let name):
                try finishHandOver(record, name: name)
            case .completed, .failed:
                break
            }
        }
        sweep()
    }

    /// Reports an unfinished task as interrupted, its length on disk recorded first for listings
    /// (informational: a file that cannot be examined or a checkpoint that cannot be written goes to
    /// ``logger``, and the report says whether it can be resumed).
    private func reportRecovered(_ task: DownloadTask, record: TaskRecord, error: SandboxError) throws(SandboxError) {
        let partial = try partialPath(record.partialName)
        do throws(SandboxError) {
            let length: Int64?
            do throws(SandboxError) {
                length = try root.fileSize(at: partial)
            } catch {
                throw .fileSystem(error, doing: "measure the partial file '\(partial)'")
            }
            if let length { try store.update(record.id) { $0.bytesOnDisk = length } }
        } catch {
            logger.handled(
                error, "The interrupted download of \(record.originalURL) is listed with its last recorded length.")
        }
        fail(task, with: error, keepingPartial: true)
    }

    private func finishHandOver(_ record: TaskRecord, name: String) throws(SandboxError) {
        let partial = try partialPath(record.partialName)
        let attributes = try partialAttributes(record.partialName)
        var path: String?
        // Only the regular file the download wrote is handed over; anything else put under its name is swept.
        if let destination = record.destination, attributes?.type == .regular {
            path = try container.moveDownload(
                from: partial, into: destination.folder.path, name: name, dataProtection: dataProtection
            ).description
        }
        try store.update(record.id) { $0.phase = .completed(path: path) }
    }

    /// Deletes files in the session's folder that no kept partial file explains (temporary files
    /// of a previous process).
    private func sweep() {
        var kept: Set<String> = [Self.lockName]
        for record in store.records {
            if case .failed(_, _, true) = record.phase { kept.insert(record.partialName) }
        }
        let names: [String]
        do throws(SandboxError) {
            names = try root.fileNames(at: directory)
        } catch {
            return logger.handled(
                SandboxError.fileSystem(error, doing: "list '\(directory)'"), "Its leftovers stay until a later start."
            )
        }
        for name in names where !kept.contains(name) {
            removePartial(named: name)
        }
    }
}
