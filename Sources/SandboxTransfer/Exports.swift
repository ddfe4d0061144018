import Sandbox
