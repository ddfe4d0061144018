// Clients of the store get the container layer (and through it the core) with it.
@_exported import Sandbox
