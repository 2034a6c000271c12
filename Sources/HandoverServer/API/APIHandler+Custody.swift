import Foundation
import HandoverCore

/// `GET /api/v1/custody`: who held which device, paged in the database (issue 40).
extension APIHandler {
    func listCustody(_ input: Operations.ListCustody.Input) async throws -> Operations.ListCustody.Output {
        let query = input.query
        let report = CustodyReport(from: query.from, to: query.to, device: try query.device.map { try id($0, of: "device") },
                                   person: try query.person.map { try id($0, of: "person") }, page: query.page ?? 1)
        let page = try await report.run(on: try CurrentRequest.request.db)
        return .ok(.init(body: .json(.init(custodies: page.rows.map(CustodyRecordView.init), page: page.page, pageCount: page.pageCount,
                                           total: page.total))))
    }
}
