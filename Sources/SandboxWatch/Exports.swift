// The folder monitor and Inbox processing live in this module.
@_exported import Sandbox
