package reqstate

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRequestStateSealOpen(t *testing.T) {
	s, err := NewSealer([]byte("shared secret"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	s.Now = func() time.Time { return now }
	digest, _ := ArgsDigest(json.RawMessage(`{"b":1,"a":[true,"x"]}`))
	in := &State{Method: "tools/call", Name: "t", Digest: digest,
		Answers: map[string]Answer{"k": {Question: "q1", Result: json.RawMessage(`{"action":"accept"}`)}}, Handler: []byte("handler-state")}
	tok, err := s.Seal(in)
	if err != nil {
		t.Fatal(err)
	}
	// The markers are long enough that random base64 never holds them by
	// chance; the handler's bytes travel base64-encoded inside the JSON.
	if strings.Contains(tok, "accept") || strings.Contains(tok, "handler-state") || strings.Contains(tok, base64.StdEncoding.EncodeToString([]byte("handler-state"))[:16]) {
		t.Errorf("the token leaks its contents: %s", tok)
	}

	// Same arguments, other key order and spacing: same digest.
	d2, _ := ArgsDigest(json.RawMessage(` { "a" : [true, "x"], "b" : 1 } `))
	got, err := s.Open(tok, "tools/call", "t", d2, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Answers["k"].Question != "q1" || string(got.Answers["k"].Result) != `{"action":"accept"}` || string(got.Handler) != "handler-state" {
		t.Errorf("opened %+v", got)
	}

	// A replica with the same StateKey opens it; another key does not.
	twin, _ := NewSealer([]byte("shared secret"))
	twin.Now = s.Now
	if _, err := twin.Open(tok, "tools/call", "t", digest, ""); err != nil {
		t.Errorf("same StateKey: %v", err)
	}
	other, _ := NewSealer(nil)
	if _, err := other.Open(tok, "tools/call", "t", digest, ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("random key: %v, want ErrInvalid", err)
	}

	d3, _ := ArgsDigest(json.RawMessage(`{"b":2,"a":[true,"x"]}`))
	for _, tc := range []struct {
		method, name, digest string
		want                 error
	}{
		{"prompts/get", "t", digest, ErrMismatch},
		{"tools/call", "u", digest, ErrMismatch},
		{"tools/call", "t", d3, ErrMismatch},
	} {
		if _, err := s.Open(tok, tc.method, tc.name, tc.digest, ""); !errors.Is(err, tc.want) {
			t.Errorf("open(%s, %s): %v, want %v", tc.method, tc.name, err, tc.want)
		}
	}

	now = now.Add(DefaultTTL + time.Second)
	if _, err := s.Open(tok, "tools/call", "t", digest, ""); !errors.Is(err, ErrExpired) {
		t.Errorf("after the TTL: %v, want ErrExpired", err)
	}
}

func TestRequestStateTamper(t *testing.T) {
	s, _ := NewSealer(nil)
	tok, err := s.Seal(&State{Method: "tools/call", Name: "t", Digest: "d"})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(requestStatePrefix); i < len(tok); i++ {
		b := []byte(tok)
		b[i] ^= 0x01
		if _, err := s.Open(string(b), "tools/call", "t", "d", ""); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
	for _, bad := range []string{"", "v1.", "v2." + tok[3:], tok + "-TAMPERED", tok[:len(tok)-4]} {
		if _, err := s.Open(bad, "tools/call", "t", "d", ""); !errors.Is(err, ErrInvalid) {
			t.Errorf("open(%q): %v, want ErrInvalid", bad, err)
		}
	}
}
