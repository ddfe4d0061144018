import Foundation

/// What the coordination folder of an app says (`Device/Coordination/<app>/state`): the latest
/// operation, numbered, and whether it is about to happen or has happened.
public struct CoordinationState: Sendable, Codable, Equatable {
    /// Where an operation is.
    public enum Phase: String, Sendable, Codable {
        /// About to start: relinquish what the policy asks.
        case will
        /// Finished (``outcome`` says how): reacquire.
        case did
    }

    /// How an operation ended.
    public enum Outcome: String, Sendable, Codable {
        /// It did what it was asked.
        case completed
        /// It failed midway or was refused: the container is as it was.
        case failed
    }

    /// Increases by one for every operation on the app.
    public var epoch: Int
    /// Before or after ``operation``.
    public var phase: Phase
    /// The operation.
    public var operation: CoordinatedOperation
    /// Set when ``phase`` is ``Phase/did``.
    public var outcome: Outcome?
    /// The pid of the process running the operation.
    public var pid: Int32

    /// A state with these fields.
    public init(epoch: Int, phase: Phase, operation: CoordinatedOperation, outcome: Outcome?, pid: Int32) {
        self.epoch = epoch
        self.phase = phase
        self.operation = operation
        self.outcome = outcome
        self.pid = pid
    }
}

/// A live user of a container as it registered (`Device/Coordination/<app>/presenters/<token>`).
public struct PresenterRecord: Sendable, Codable, Equatable {
    /// What it is.
    public var kind: PresenterKind
    /// Its process.
    public var pid: Int32
    /// What it is, for messages: "sandbox share on 127.0.0.1:8080".
    public var description: String
    /// Container paths it has declared held (purge never evicts them).
    public var held: [String]
    /// Whether it says when it has reopened the container after an operation
    /// (``ContainerPresenter/reacquired(_:)``): the operation then returns only once it has, so
    /// the next request after a restore meets the restored container.
    public var confirmsReacquisition: Bool

    /// A record with these fields.
    public init(
        kind: PresenterKind, pid: Int32, description: String, held: [String] = [], confirmsReacquisition: Bool = false
    ) {
        self.kind = kind
        self.pid = pid
        self.description = description
        self.held = held
        self.confirmsReacquisition = confirmsReacquisition
    }

    /// Decodes a record; `held` and `confirmsReacquisition` may be missing (false, none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(PresenterKind.self, forKey: .kind)
        pid = try container.decode(Int32.self, forKey: .pid)
        description = try container.decode(String.self, forKey: .description)
        held = try container.decodeIfPresent([String].self, forKey: .held) ?? []
        confirmsReacquisition = try container.decodeIfPresent(Bool.self, forKey: .confirmsReacquisition) ?? false
    }

    /// "sandbox share on 127.0.0.1:8080 (pid 42)".
    public var named: String { "\(description) (pid \(pid))" }
}

extension JSONEncoder {
    /// The encoder of coordination records: sorted keys, so records compare as bytes.
    static func coordination() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
