import Sandbox
import SandboxCore

/// An App Group restored with an app, as ``RestoreReport/groups`` lists it.
public struct GroupRestoreReport: Sendable, Hashable, Codable {
    /// The group.
    public var group: String
    /// Items restored (files, folders, symlinks).
    public var files: Int
    /// Bytes of file contents restored.
    public var bytes: Int64
    /// Keychain items of the group's access group written, or `nil` when it was left as it was.
    public var keychainItems: Int?
}

extension Restore {
    /// The App Group parts of `snapshot` to restore with the app of `container`: those of the
    /// groups its installed bundle lists now (its verified, signed membership), sorted by group,
    /// and a note for each group of the snapshot it is not a member of (not restored: iOS gives a
    /// group's container only to its members).
    ///
    /// When the app's membership cannot be read (``/Sandbox/Container/appGroups()``: its signer no
    /// longer trusted, say), no group is restored — a restore does not guess — and a note says why.
    static func groupParts(
        of container: Container, in snapshot: Snapshot
    ) -> (parts: [(group: AppGroupIdentifier, part: AppSnapshot)], notes: [String]) {
        var parts: [(group: AppGroupIdentifier, part: AppSnapshot)] = []
        var notes: [String] = []
        guard let held = snapshot.record.groups, !held.isEmpty else { return ([], []) }
        let members: Set<AppGroupIdentifier>
        do throws(SandboxError) {
            members = Set(try container.appGroups())
        } catch {
            return (
                [],
                [
                    "The App Groups of the snapshot were not restored: the groups of '\(container.identifier)' cannot be read (\(error.message))."
                ]
            )
        }
        for part in held {
            let group: AppGroupIdentifier
            do throws(SandboxError) {
                group = try AppGroupIdentifier(groupPartName: part.app)
            } catch {
                notes.append("The snapshot's part '\(part.app)' names no App Group; it was not restored.")
                continue
            }
            if members.contains(group) {
                parts.append((group, part))
            } else {
                notes.append(
                    "The snapshot holds App Group '\(group)', which '\(container.identifier)' is not a member of (its signed bundle does not list it); the group was not restored."
                )
            }
        }
        return (parts.sorted { $0.group < $1.group }, notes)
    }
}

extension AppGroupIdentifier {
    /// The group a snapshot's part `AppDomainGroup-<group-id>` holds (``AppSnapshot/groupPartName(_:)``).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for another name; the errors
    ///   of a group identifier that is not valid.
    init(groupPartName name: String) throws(SandboxError) {
        let group = try AppGroupIdentifier(String(name.drop { $0 != "-" }.dropFirst()))
        // The one spelling of a group's part name is groupPartName's.
        guard AppSnapshot.groupPartName(group) == name else {
            throw SandboxError(.invalidArgument, "'\(name)' is not an App Group's part.", path: name)
        }
        self = group
    }
}
