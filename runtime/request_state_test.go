package runtime

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRequestStateSealOpen(t *testing.T) {
	s, err := newStateSealer([]byte("shared secret"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	s.now = func() time.Time { return now }
	digest, _ := argsDigest(json.RawMessage(`{"b":1,"a":[true,"x"]}`))
	in := &requestState{Method: "tools/call", Name: "t", Digest: digest,
		Answers: map[string]answer{"k": {Question: "q1", Result: json.RawMessage(`{"action":"accept"}`)}}, Handler: []byte("handler-state")}
	tok, err := s.seal(in)
	if err != nil {
		t.Fatal(err)
	}
	// The markers are long enough that random base64 never holds them by
	// chance; the handler's bytes travel base64-encoded inside the JSON.
	if strings.Contains(tok, "accept") || strings.Contains(tok, "handler-state") || strings.Contains(tok, base64.StdEncoding.EncodeToString([]byte("handler-state"))[:16]) {
		t.Errorf("the token leaks its contents: %s", tok)
	}

	// Same arguments, other key order and spacing: same digest.
	d2, _ := argsDigest(json.RawMessage(` { "a" : [true, "x"], "b" : 1 } `))
	got, err := s.open(tok, "tools/call", "t", d2, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Answers["k"].Question != "q1" || string(got.Answers["k"].Result) != `{"action":"accept"}` || string(got.Handler) != "handler-state" {
		t.Errorf("opened %+v", got)
	}

	// A replica with the same StateKey opens it; another key does not.
	twin, _ := newStateSealer([]byte("shared secret"))
	twin.now = s.now
	if _, err := twin.open(tok, "tools/call", "t", digest, ""); err != nil {
		t.Errorf("same StateKey: %v", err)
	}
	other, _ := newStateSealer(nil)
	if _, err := other.open(tok, "tools/call", "t", digest, ""); !errors.Is(err, errStateInvalid) {
		t.Errorf("random key: %v, want errStateInvalid", err)
	}

	d3, _ := argsDigest(json.RawMessage(`{"b":2,"a":[true,"x"]}`))
	for _, tc := range []struct {
		method, name, digest string
		want                 error
	}{
		{"prompts/get", "t", digest, errStateMismatch},
		{"tools/call", "u", digest, errStateMismatch},
		{"tools/call", "t", d3, errStateMismatch},
	} {
		if _, err := s.open(tok, tc.method, tc.name, tc.digest, ""); !errors.Is(err, tc.want) {
			t.Errorf("open(%s, %s): %v, want %v", tc.method, tc.name, err, tc.want)
		}
	}

	now = now.Add(defaultRequestStateTTL + time.Second)
	if _, err := s.open(tok, "tools/call", "t", digest, ""); !errors.Is(err, errStateExpired) {
		t.Errorf("after the TTL: %v, want errStateExpired", err)
	}
}

func TestRequestStateTamper(t *testing.T) {
	s, _ := newStateSealer(nil)
	tok, err := s.seal(&requestState{Method: "tools/call", Name: "t", Digest: "d"})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(requestStatePrefix); i < len(tok); i++ {
		b := []byte(tok)
		b[i] ^= 0x01
		if _, err := s.open(string(b), "tools/call", "t", "d", ""); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
	for _, bad := range []string{"", "v1.", "v2." + tok[3:], tok + "-TAMPERED", tok[:len(tok)-4]} {
		if _, err := s.open(bad, "tools/call", "t", "d", ""); !errors.Is(err, errStateInvalid) {
			t.Errorf("open(%q): %v, want errStateInvalid", bad, err)
		}
	}
}
