import Testing

@testable import SandboxBackup

@Suite struct MachineTests {
    @Test func aBackupMovesThroughItsPhasesInOrder() throws {
        var machine = BackupMachine()
        try machine.handle(.scanned(app: "a", files: 2, bytes: 10))
        try machine.handle(.stored(bytesRead: 10, bytesWritten: 4))
        try machine.handle(.fileDone)
        try machine.handle(.fileDone)
        try machine.handle(.appDone)
        try machine.handle(.indexWritten(bytesWritten: 1))
        let done = try machine.handle(.snapshotWritten(id: "abc"))
        #expect(done.phase == .finished)
        #expect(done.filesDone == 2 && done.bytesDone == 10 && done.bytesStored == 5 && done.snapshot == "abc")
    }

    @Test func aSnapshotBeforeItsIndexIsRefused() throws {
        var machine = BackupMachine()
        #expect(throws: BackupMachine.InvalidTransition(phase: .scanning)) {
            try machine.handle(.snapshotWritten(id: "x"))
        }
        try machine.handle(.scanned(app: "a", files: 0, bytes: 0))
        #expect(throws: BackupMachine.InvalidTransition(phase: .storing)) {
            try machine.handle(.indexWritten(bytesWritten: 0))
        }
    }

    @Test func aRestoreExchangesOnlyOnceStagedAndNeverWritesAfter() throws {
        var machine = RestoreMachine(app: "a", files: 1, bytes: 3)
        #expect(throws: RestoreMachine.InvalidTransition(phase: .staging)) { try machine.handle(.exchanged) }
        try machine.handle(.wrote(bytes: 3))
        try machine.handle(.fileDone)
        try machine.handle(.staged)
        #expect(throws: RestoreMachine.InvalidTransition(phase: .exchanging)) { try machine.handle(.wrote(bytes: 1)) }
        try machine.handle(.exchanged)
        #expect(try machine.handle(.keychainDone).phase == .finished)
    }
}

@Suite struct SnapshotOrderTests {
    /// Two snapshots in one second: the second is the latest (it was decided by random ids when
    /// dates were kept to the second).
    @Test func snapshotsTakenWithinOneSecondKeepTheirOrder() async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository()
            var ids: [String] = []
            for round in 0..<6 {
                try fixture.write("Documents/round.txt", Array("\(round)".utf8))
                ids.append(try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository).snapshot)
            }
            #expect(try await repository.snapshots().map(\.id) == ids)
        }
    }
}
