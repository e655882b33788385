package main

// interopTools are the diagnostic tools beyond the suite's that the
// real-client interop checks (interop/) call.
var interopTools = []string{"test_trigger_resource_update"}
