import Foundation
import HandoverSchema
import SQLKit

/// How a check-out reads and writes custodies in progress: plain SQL, a few statements a batch.
extension OpenCustody {
    /// The custody as the rest of the server reads it.
    var model: Custody {
        let custody = Custody()
        custody.id = id
        custody.deviceID = deviceID
        custody.userID = userID
        custody.personName = personName
        custody.personEmail = personEmail
        custody.site = site
        custody.siteKey = siteKey
        custody.checkedOutBy = checkedOutBy
        custody.checkedOutAt = checkedOutAt
        custody.checkedInAt = checkedInAt
        custody.badgeDigest = badgeDigest
        custody.endedWithoutRun = endedWithoutRun
        return custody
    }

    private static let columns: SQLQueryString = "id, device_id, user_id, person_name, person_email, site, site_key, checked_out_by, checked_out_at, badge_digest"

    /// The custodies in progress of these people or on these devices: one statement, each half
    /// on its partial index (`custodies_open_by_user`, `custodies_open`).
    static func open(people: Set<UUID>, devices: Set<UUID>, on sql: any SQLDatabase) async throws -> [OpenCustody] {
        var halves: [SQLQueryString] = []
        if !people.isEmpty {
            halves.append("SELECT \(columns) FROM custodies WHERE checked_in_at IS NULL AND user_id IN (\(SQLList(people.map { SQLBind($0) })))")
        }
        if !devices.isEmpty {
            halves.append("SELECT \(columns) FROM custodies WHERE checked_in_at IS NULL AND device_id IN (\(SQLList(devices.map { SQLBind($0) })))")
        }
        guard !halves.isEmpty else { return [] }
        var seen = Set<UUID>()
        return try await sql.raw(halves.joined(separator: " UNION ALL ")).all().compactMap { row in
            let custody = OpenCustody(id: try row.decode(column: "id", as: UUID.self), deviceID: try row.decode(column: "device_id", as: UUID.self),
                                      userID: try row.decode(column: "user_id", as: UUID.self),
                                      personName: try row.decode(column: "person_name", as: String?.self),
                                      personEmail: try row.decode(column: "person_email", as: String?.self),
                                      site: try row.decode(column: "site", as: String?.self),
                                      siteKey: try row.decode(column: "site_key", as: String?.self),
                                      checkedOutBy: try row.decode(column: "checked_out_by", as: String.self),
                                      checkedOutAt: try row.decode(column: "checked_out_at", as: Date.self),
                                      badgeDigest: try row.decode(column: "badge_digest", as: String?.self))
            return seen.insert(custody.id).inserted ? custody : nil
        }
    }

    /// Ends custodies in progress that the next person took over: one statement.
    static func end(_ ids: [UUID], at now: Date, on sql: any SQLDatabase) async throws {
        guard !ids.isEmpty else { return }
        try await sql.raw("""
            UPDATE custodies SET checked_in_at = \(bind: now), ended_without_run = \(bind: CustodyRules.takenOver)
            WHERE id IN (\(SQLList(ids.map { SQLBind($0) })))
            """).run()
    }

    /// Writes new custodies: one statement.
    static func insert(_ custodies: [OpenCustody], on sql: any SQLDatabase) async throws {
        guard !custodies.isEmpty else { return }
        let rows = custodies.map { custody -> SQLQueryString in
            """
            (\(bind: custody.id), \(bind: custody.deviceID), \(bind: custody.userID), \(bind: custody.personName), \(bind: custody.personEmail), \
            \(bind: custody.site), \(bind: custody.siteKey), \(bind: custody.checkedOutBy), \(bind: custody.checkedOutAt), \(bind: custody.checkedInAt), \
            \(bind: custody.badgeDigest), \(bind: custody.endedWithoutRun))
            """
        }
        try await sql.raw("""
            INSERT INTO custodies (id, device_id, user_id, person_name, person_email, site, site_key, checked_out_by, checked_out_at, checked_in_at,
                badge_digest, ended_without_run) VALUES \(SQLList(rows))
            """).run()
    }
}
