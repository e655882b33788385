// Package memstat is the small debug endpoint the serve command exposes so a
// driver in another process can read the server's memory and find its PID
// (for CPU time in /proc/PID/stat).
package memstat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"runtime"
	"strconv"
)

// Path is where Handler is mounted.
const Path = "/debug/memstats"

// Stats is what Handler answers, after two full garbage collections so that
// HeapAlloc counts live memory only.
type Stats struct {
	PID        int    `json:"pid"`
	HeapAlloc  uint64 `json:"heapAlloc"`  // live heap bytes
	HeapInuse  uint64 `json:"heapInuse"`  // bytes in in-use spans
	StackInuse uint64 `json:"stackInuse"` // goroutine stacks
	Sys        uint64 `json:"sys"`        // bytes obtained from the OS
	RSS        uint64 `json:"rss"`        // resident set size, VmRSS
	Goroutines int    `json:"goroutines"`
}

// Read collects Stats for this process.
func Read() Stats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Stats{
		PID:        os.Getpid(),
		HeapAlloc:  m.HeapAlloc,
		HeapInuse:  m.HeapInuse,
		StackInuse: m.StackInuse,
		Sys:        m.Sys,
		RSS:        rss(),
		Goroutines: runtime.NumGoroutine(),
	}
}

// Handler serves Read as JSON.
func Handler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(Read())
}

// rss reads VmRSS from /proc/self/status (0 where there is none).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "VmRSS:" {
			kb, _ := strconv.ParseUint(string(f[1]), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
