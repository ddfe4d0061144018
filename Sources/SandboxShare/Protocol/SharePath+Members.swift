import Sandbox

extension SharePath {
    /// ``SharePath/isHidden`` for the members of one folder, judged once for the folder and then
    /// by each member's name alone: a listing asks it for every member, and building each
    /// member's container path for the policy was 7 % of a large PROPFIND's CPU.
    ///
    /// A member is hidden when its folder is, when its name starts with `.`, or when the
    /// container's policy refuses reading it. The policy judges an item by the deepest directory
    /// of the layout holding it (``/Sandbox/ContainerDirectory/holding(_:)``), and the only
    /// directory that can hold a member but not its folder is one placed at the member itself
    /// (`Inbox` in `Documents`): only those names are asked of the policy.
    package struct MemberVisibility: Sendable {
        private let folder: SharePath
        private let hidesAll: Bool
        /// The names in the folder where the layout places one of its directories.
        private let layoutNames: [[UInt8]]

        /// The verdict for the members of `folder`.
        package init(folder: SharePath) {
            self.folder = folder
            hidesAll = folder.isHidden
            let here = folder.pathInContainer
            layoutNames = ContainerDirectory.allCases.compactMap { directory in
                guard let path = directory.path, path.names.count == here.names.count + 1, path.isDescendant(of: here)
                else { return nil }
                return path.lastName?.bytes
            }
        }

        /// Whether the member `name` of the folder is hidden: `folder.appending(name).isHidden`.
        package func hides(_ name: String) -> Bool {
            if hidesAll || name.utf8.first == UInt8(ascii: ".") { return true }
            guard layoutNames.contains(where: { name.utf8.elementsEqual($0) }) else { return false }
            return folder.appending(name).isHidden
        }
    }
}
