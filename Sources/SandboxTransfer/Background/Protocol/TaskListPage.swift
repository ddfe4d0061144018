/// Where a page of a `list` answer ends: the last task it carried (issue 31). The daemon lists a
/// session's tasks in task-identifier order (an app's sessions by name, then identifier), and the
/// next page starts after this task; a listing of 100,000 tasks is a hundred frames, none past
/// ``BackgroundProtocol/maximumFrameSize``, and neither side holds the whole list.
package struct TaskCursor: Codable, Sendable, Hashable {
    /// The session of the last task listed.
    package var session: String
    /// The identifier of the last task listed.
    package var taskID: Int

    package init(session: String, taskID: Int) {
        self.session = session
        self.taskID = taskID
    }
}

/// The bounds of one page of a `list` answer.
package enum TaskListPage {
    /// The most tasks a page carries, whatever the client asks for.
    package static let maximumTasks = 1000
    /// About the most bytes a page's tasks take in its frame: a page ends at ``maximumTasks`` or
    /// here, whichever comes first (at least one task a page).
    package static let maximumBytes = 256 << 10

    /// A bound on the bytes `task` takes in a `tasks` frame: its strings escaped at worst (each
    /// byte as two; a URL, a container path and a session name hold no control characters) and
    /// its other keys and numbers.
    package static func estimatedSize(of task: DownloadTaskSummary.Wire) -> Int {
        2 * (task.url.utf8.count + (task.path?.utf8.count ?? 0) + task.session.utf8.count)
            + (task.errorCode?.utf8.count ?? 0) + 256
    }
}
