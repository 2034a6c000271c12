import HandoverProtocol
import Testing

/// Every transition of a device's life cycle, the refused ones included.
@Suite(.timeLimit(.minutes(5))) struct DeviceLifeCycleTransitionTests {
    @Test func aHandOverMovesADeviceThroughHandingOver() {
        #expect(DeviceStatus.inService.on(.runStarted) == .move(.handingOver))
        #expect(DeviceStatus.handingOver.on(.runCompleted) == .move(.inService))
        #expect(DeviceStatus.handingOver.on(.runFailed) == .move(.outOfService))
        #expect(DeviceStatus.handingOver.on(.runStarted) == .move(.handingOver), "a second run while one is under way")
    }

    @Test func anOverdueDeviceIsHandedOverLikeAnyOther() {
        #expect(DeviceStatus.inService.on(.becameOverdue) == .move(.overdue))
        #expect(DeviceStatus.overdue.on(.runStarted) == .move(.handingOver))
        #expect(DeviceStatus.overdue.on(.runFailed) == .move(.outOfService))
        #expect(DeviceStatus.overdue.on(.runCompleted) == .move(.inService), "a run started before it became overdue")
        for status in [DeviceStatus.overdue, .outOfService, .handingOver] {
            #expect(status.on(.becameOverdue) == .refuse(.notInService), "\(status)")
        }
    }

    @Test func onlyAPersonWithANoteReturnsADeviceToService() {
        #expect(DeviceStatus.outOfService.on(.backInService(note: "Mail signed out by hand")) == .move(.inService))
        #expect(DeviceStatus.overdue.on(.backInService(note: "found in the drawer, charged")) == .move(.inService))
        for note in ["", "   ", "\n\t"] {
            #expect(DeviceStatus.outOfService.on(.backInService(note: note)) == .refuse(.noteRequired), "'\(note)'")
        }
        #expect(DeviceStatus.inService.on(.backInService(note: "fine")) == .refuse(.notOutOfService))
        #expect(DeviceStatus.handingOver.on(.backInService(note: "fine")) == .refuse(.notOutOfService))
        // A run on a device out of service leaves it there, even when every app signs out.
        #expect(DeviceStatus.outOfService.on(.runStarted) == .move(.outOfService))
        #expect(DeviceStatus.outOfService.on(.runCompleted) == .move(.outOfService))
        #expect(DeviceStatus.outOfService.on(.runFailed) == .move(.outOfService))
    }

    @Test func aRetiredDeviceLeavesTheFleetForGood() {
        for status in [DeviceStatus.inService, .outOfService, .overdue] {
            #expect(status.on(.retire(note: "screen broken, recycled")) == .move(.retired), "\(status)")
            #expect(status.on(.retire(note: "  \n")) == .refuse(.noteRequired), "\(status)")
        }
        #expect(DeviceStatus.handingOver.on(.retire(note: "recycled")) == .refuse(.handOverUnderWay), "not while a hand-over is under way")
        #expect(DeviceStatus.retired.on(.retire(note: "again")) == .refuse(.retired))
        #expect(DeviceStatus.retired.on(.runStarted) == .refuse(.retired), "no run starts on a retired device")
        #expect(DeviceStatus.retired.on(.becameOverdue) == .refuse(.notInService), "never overdue")
        #expect(DeviceStatus.retired.on(.backInService(note: "found")) == .refuse(.notOutOfService), "nothing brings it back")
        #expect(DeviceStatus.retired.on(.runFailed) == .move(.retired))
        #expect(!DeviceStatus.retired.needsAttention)
        #expect(DeviceStatus.Event.retire(note: "x").name == .retired)
    }

    @Test func everyStatusAnswersEveryEvent() {
        let events: [DeviceStatus.Event] = [.runStarted, .runCompleted, .runFailed, .backInService(note: "ok"), .backInService(note: ""), .becameOverdue]
        for status in DeviceStatus.allCases {
            for event in events {
                if case .move(let next) = status.on(event), event.name == .runFailed { #expect(next == (status == .retired ? .retired : .outOfService)) }
            }
        }
        #expect(DeviceStatus.allCases.filter(\.needsAttention) == [.outOfService, .overdue])
        #expect(DeviceHistoryEvent.allCases.map(\.rawValue) == ["run_started", "run_completed", "run_failed", "back_in_service", "overdue",
                                                                 "mdm_command_queued", "mdm_command_sent", "mdm_command_failed", "erase_confirmed",
                                                                 "mdm_command_cancelled", "key_revoked", "key_replaced", "retired", "alert_raised",
                                                                 "alert_acknowledged"])
        #expect(MDMAction.allCases.map(\.rawValue) == ["lock", "lost_mode", "erase", "return_to_service", "disable_lost_mode"])
        #expect(MDMAction.allCases.filter(\.needsConfirmation) == [.erase, .returnToService])
        #expect(MDMAction.allCases.filter { !$0.isRemedy } == [.disableLostMode], "lifting Lost Mode is owed to a device back in service")
        #expect(MDMCommandState.allCases.map(\.rawValue) == ["awaiting_confirmation", "pending", "sent", "failed", "dry_run", "cancelled"])
    }
}
