// Clients of the container layer get the core's types (paths, errors, the confined root) with it.
@_exported import SandboxCore
