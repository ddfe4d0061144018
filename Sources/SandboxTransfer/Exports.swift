// Clients of download sessions get the container layer's types (containers, paths, errors) with it.
@_exported import Sandbox
