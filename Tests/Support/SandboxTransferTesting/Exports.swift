// Whoever tests downloads needs scratch folders, `eventually` and the process runner too.
@_exported import SandboxTesting
