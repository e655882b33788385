package main

import "flag"

// The generator's golden tests take -update; accepting it here lets
// go test ./... -run Golden -update run over the whole module.
var _ = flag.Bool("update", false, "rewrite golden files (used by the generator package)")
