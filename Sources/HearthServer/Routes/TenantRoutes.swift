import HearthCore
import HearthEngine
import Hummingbird

/// Identity Platform's tenant API, for admins: `/v2/projects/{p}/tenants` (create, list) and
/// `/v2/projects/{p}/tenants/{t}` (get, update with `updateMask`, delete). `respond` resolves `{tenant}` into the
/// origin's scope, so an unknown tenant is TENANT_NOT_FOUND before any handler runs.
extension AuthRoutes {
    func registerTenants(prefix: String, on router: HearthRouter) {
        let collection = RouterPath("\(prefix)/v2/projects/{project}/tenants")
        router.post(collection) { request, context in
            try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                try await engine.createTenant(wire.body, origin: origin)
            }
        }
        router.get(collection) { request, context in
            try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                try engine.listTenants(
                    pageSize: try wire.int("pageSize").map(Int.init), pageToken: try wire.string("pageToken"),
                    origin: origin)
            }
        }
        let item = RouterPath("\(prefix)/v2/projects/{project}/tenants/{tenant}")
        router.get(item) { request, context in
            try await respond(request, context, hasProject: true, nil, configuresTenant: true) { _, origin in try engine.tenantView(origin: origin) }
        }
        router.patch(item) { request, context in
            try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                let mask = try wire.string("updateMask").map { $0.split(separator: ",").map(String.init) }
                var patch = wire.body
                patch["updateMask"] = nil
                return try await engine.updateTenant(patch, mask: mask, origin: origin)
            }
        }
        router.delete(item) { request, context in
            try await respond(request, context, hasProject: true, nil, configuresTenant: true) { _, origin in
                try await engine.deleteTenant(origin: origin)
                return [:]
            }
        }
    }
}
