/// Version 17: indexes for the device sign-out every logout run starts with (its Native SSO
/// sessions, the phone enrolled for out-of-band operations). Without them each run start read
/// every session and every enrolled phone ever stored (`SCAN user_sessions`, `SCAN
/// enrolled_devices`), and revoked sessions stay stored.
struct AddDeviceSignOutIndexes: IndexMigration {
    static let indexes: [(name: String, target: String)] = [
        ("user_sessions_device", "user_sessions (device_id)"),
        ("enrolled_devices_fleet_device", "enrolled_devices (fleet_device_id)"),
    ]
}
