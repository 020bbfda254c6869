import Hummingbird
import TallyCore

/// Spending a user's credits: `POST /v1/me/spend` at once, or metered through a reservation
/// (`POST /v1/me/reservations` holds an amount, `…/{id}/commit` spends what was used and
/// returns the rest, `DELETE …/{id}` returns all of it). Each write is idempotent by its key.
struct SpendingController {
    let spending: SpendingStore
    let metrics: Metrics

    /// The routes that take credits: spend, reserve, commit.
    var endpoints: RouteCollection<UserRequestContext> {
        RouteCollection(context: UserRequestContext.self)
            .post("spend", use: spend)
            .post("reservations", use: reserve)
            .post("reservations/:id/commit", use: commit)
    }

    /// The route that only gives back what a reservation holds.
    var releaseEndpoints: RouteCollection<UserRequestContext> {
        RouteCollection(context: UserRequestContext.self)
            .delete("reservations/:id", use: release)
    }

    /// Spends from the allowance first, then the oldest credits; the same key again spends nothing.
    func spend(_ request: Request, context: UserRequestContext) async throws -> SpendResponse {
        let body = try await request.decode(as: SpendRequest.self, context: context)
        let response = try await spending.spend(user: context.user, request: body)
        if !response.replayed { metrics.increment("tally_spends_total", ["currency": body.currency], by: body.amount) }
        return response
    }

    /// 201 with a new hold, or 200 with the one this key made before.
    func reserve(_ request: Request, context: UserRequestContext) async throws -> EditedResponse<Reservation> {
        let body = try await request.decode(as: ReservationRequest.self, context: context)
        let reservation = try await spending.reserve(user: context.user, request: body)
        return EditedResponse(status: reservation.replayed ? .ok : .created, response: reservation)
    }

    /// Spends the `used` part of a hold; the rest returns.
    func commit(_ request: Request, context: UserRequestContext) async throws -> Reservation {
        let body = try await request.decode(as: CommitReservationRequest.self, context: context)
        return try await spending.commit(user: context.user, reservationID: context.parameters.identifier("id"), used: body.used)
    }

    /// Returns a whole hold unused.
    func release(_ request: Request, context: UserRequestContext) async throws -> Reservation {
        try await spending.release(user: context.user, reservationID: context.parameters.identifier("id"))
    }
}
