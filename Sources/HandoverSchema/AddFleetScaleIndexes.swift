/// Version 15: indexes for a fleet of thousands of devices: the dashboard's device list (by
/// name, by status), runs by time and by outcome (recent runs, "failed in the last 24 h"), and
/// each app's finished items (its scorecard).
struct AddFleetScaleIndexes: IndexMigration {
    static let indexes: [(name: String, target: String)] = [
        ("devices_by_name", "devices (name)"),
        ("devices_by_status", "devices (status, name)"),
        ("logout_runs_by_created", "logout_runs (created_at)"),
        ("logout_runs_by_outcome", "logout_runs (status, finished_at)"),
        ("logout_items_by_app", "logout_items (app_id, finished_at)"),
    ]
}
