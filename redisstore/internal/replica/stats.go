package main

import (
	"encoding/json"
	"net"
	"net/http"
	goruntime "runtime"
)

// Stats is what GET /stats on the replica's stats listener reports: after
// a full collection, the goroutines and the live heap of the process, so a
// test sees whether an outage makes either grow.
type Stats struct {
	Goroutines int    `json:"goroutines"`
	HeapAlloc  uint64 `json:"heapAlloc"`
}

// serveStats serves GET /stats on a loopback port of its own and returns
// its URL.
func serveStats() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(Stats{Goroutines: goruntime.NumGoroutine(), HeapAlloc: ms.HeapAlloc})
	})
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String() + "/stats", nil
}
