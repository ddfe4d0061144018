import Sandbox

extension DownloadSession {
    /// The identifiers of the sessions that have a folder in `container`, sorted.
    ///
    /// - Throws: the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause) when the
    ///   sessions' folder cannot be read; a container without one has no sessions.
    public static func sessionIdentifiers(container: Container) throws(SandboxError) -> [String] {
        do throws(SandboxError) {
            return try container.root.subdirectoryNames(at: folder).sorted()
        } catch  where error.code == .notFound {
            return []
        } catch {
            throw .fileSystem(error, doing: "list the download sessions in '\(folder)'")
        }
    }

    /// The tasks checkpointed by session `identifier` of `container`, without opening the session
    /// (so while another process runs it). Bytes on disk are measured now.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a bad identifier,
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged checkpoint, the core's code of a file failure
    ///   when the checkpoint or a partial file cannot be read.
    public static func storedTasks(
        identifier: String, container: Container
    ) throws(SandboxError) -> [DownloadTaskSummary] {
        let root = container.root
        let directory = try directory(for: identifier)
        var summaries: [DownloadTaskSummary] = []
        for record in try SessionStore.load(root: root, folder: try checkpointPath(in: directory)) {
            var length: Int64?
            if record.keepsPartialFile {
                let path = try SessionStore.path(record.partialName, in: directory)
                do throws(SandboxError) {
                    length = try root.fileSize(at: path)
                } catch {
                    throw .fileSystem(error, doing: "measure the partial download '\(path)'")
                }
            }
            summaries.append(record.summary(session: identifier, partialLength: length))
        }
        return summaries
    }

    /// The tasks of every session of `container`, by session identifier, then task.
    ///
    /// - Throws: as ``sessionIdentifiers(container:)`` and ``storedTasks(identifier:container:)``.
    public static func storedTasks(container: Container) throws(SandboxError) -> [DownloadTaskSummary] {
        var tasks: [DownloadTaskSummary] = []
        for identifier in try sessionIdentifiers(container: container) {
            tasks += try storedTasks(identifier: identifier, container: container)
        }
        return tasks
    }
}
