package events

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// Identity: subscriptions are keyed by what they listen for, where they
// deliver and who asked, compared as canonical JSON; the ids are digests of
// that key, so that every replica derives the same id and a refresh after a
// restart finds the same subscription.

// maxArgumentsBytes bounds a subscription's arguments as the client sends
// them (the runtime bounds the whole request; this bounds what is kept).
const maxArgumentsBytes = 16 << 10

func compactJSON(b []byte) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// canonicalArguments returns the arguments as canonical JSON (object keys
// sorted, no insignificant space, numbers as written): absent and null are
// {}; anything but an object is an error.
func canonicalArguments(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if len(t) > maxArgumentsBytes {
		return nil, fmt.Errorf("arguments are %d bytes; at most %d are accepted", len(t), maxArgumentsBytes)
	}
	v, err := decodeJSON(t)
	if err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("arguments must be a JSON object")
	}
	// encoding/json writes map keys sorted and keeps json.Number text.
	out, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// principalKey identifies a principal without naming it: a digest of
// issuer and subject ("" without one).
func principalKey(p *runtime.Principal) string {
	if p == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(p.Issuer + "\x00" + p.Subject))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// subscriptionID derives the id of a subscription from its key. url is ""
// for poll and push.
func subscriptionID(pk, url, name string, args json.RawMessage) string {
	h := sha256.New()
	for _, part := range []string{pk, url, name} {
		fmt.Fprintf(h, "%d:%s\x00", len(part), part)
	}
	h.Write(args)
	return "sub_" + hex.EncodeToString(h.Sum(nil)[:12])
}

// verificationKey identifies a verified (principal, url).
func verificationKey(pk, url string) string {
	sum := sha256.Sum256([]byte(pk + "\x00" + url))
	return hex.EncodeToString(sum[:16])
}

func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newEventID is the eventId of an event emitted without one.
func newEventID() string { return "evt_" + randomToken(12) }

// controlMessageID is the webhook-id of a control envelope.
func controlMessageID(kind string) string { return "msg_" + kind + "_" + randomToken(12) }

// storedPrincipal is what a stored subscription keeps of its principal.
type storedPrincipal struct {
	Issuer   string `json:"iss,omitempty"`
	Subject  string `json:"sub,omitempty"`
	ClientID string `json:"cid,omitempty"`
}

func (s *storedPrincipal) principal() *runtime.Principal {
	if s == nil || s.Issuer == "" && s.Subject == "" {
		return nil
	}
	return &runtime.Principal{Issuer: s.Issuer, Subject: s.Subject, ClientID: s.ClientID}
}

func storePrincipal(p *runtime.Principal) *storedPrincipal {
	if p == nil {
		return nil
	}
	return &storedPrincipal{Issuer: p.Issuer, Subject: p.Subject, ClientID: p.ClientID}
}

// redactURL is a callback URL fit for a log line: scheme, host and path,
// never its query (where some receivers put tokens).
func redactURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return u
}
