// Package reqstate seals and opens the requestState that carries a
// 2026-07-28 multi round-trip call from one round to the next (AES-256-GCM
// under a key derived from Options.StateKey), bound to the method, the
// target, a digest of the arguments, the principal and an expiry.
package reqstate

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultTTL is how long a client may take to answer an
// input_required round before its requestState expires
// (Options.RequestStateTTL).
const DefaultTTL = 15 * time.Minute

// requestStatePrefix versions the token format.
const requestStatePrefix = "v1."

// requestStateAAD binds the ciphertext to this use of the key.
var requestStateAAD = []byte("mcpgen/requestState/v1")

// Sentinel causes of a rejected requestState, for tests and logs.
var (
	ErrInvalid   = errors.New("requestState is not valid (tampered with, or sealed with another StateKey)")
	ErrExpired   = errors.New("requestState has expired; call the tool again without it")
	ErrMismatch  = errors.New("requestState belongs to another request")
	ErrPrincipal = errors.New("requestState was issued to another principal")
)

// State is the requestState that travels, sealed, between the rounds of one 2026-07-28
// multi round-trip call: the answers of earlier rounds, the handler's own
// state (Call.SetState), and what the state is bound to.
type State struct {
	ID      string            `json:"i,omitempty"` // random: names this state in the StateLedger (single-use mode)
	Method  string            `json:"m"`           // e.g. "tools/call"
	Name    string            `json:"n"`           // the tool's name
	Digest  string            `json:"d"`           // ArgsDigest of the call's arguments
	Expires int64             `json:"e"`           // Unix seconds
	Answers map[string]Answer `json:"a,omitempty"` // input responses of earlier rounds, by key
	Asked   map[string]string `json:"q,omitempty"` // QuestionDigest of each question left open, by key
	AskedAt int64             `json:"t,omitempty"` // Unix milliseconds when the round that left them open ended
	Handler []byte            `json:"s,omitempty"` // the handler's SetState bytes
	// Principal is the key of the principal whose request issued the state
	// ("" without authorization); a retry of another principal is refused.
	Principal string `json:"p,omitempty"`
}

// Answer is an input response bound to the question it answers, so that a
// replay that asks something else under the same key is asked again rather
// than handed an answer to another question.
type Answer struct {
	Question string          `json:"q,omitempty"` // QuestionDigest; "" when unknown (no requestState came back)
	Result   json.RawMessage `json:"r"`
}

// QuestionDigest identifies a question by its method and params.
func QuestionDigest(method string, params any) string {
	b, err := json.Marshal(params)
	if err != nil {
		return ""
	}
	canon, err := canonicalJSON(b)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(append([]byte(method+"\n"), canon...))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// Sealer seals and opens requestState with AES-256-GCM. The AEAD key is
// derived from Options.StateKey (any length), so replicas sharing the
// StateKey accept each other's state.
type Sealer struct {
	aead cipher.AEAD
	// TTL is how long a sealed state stays valid; Now is the clock.
	TTL time.Duration
	Now func() time.Time
}

// NewSealer derives the AEAD key from secret; an empty secret means a
// random key, good for one Server's lifetime.
func NewSealer(secret []byte) (*Sealer, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("requestState key: %w", err)
		}
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("mcpgen requestState AEAD key v1"))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("requestState key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("requestState key: %w", err)
	}
	return &Sealer{aead: aead, TTL: DefaultTTL, Now: time.Now}, nil
}

// seal stamps st with a random ID and its expiry and returns the opaque
// token.
func (s *Sealer) Seal(st *State) (string, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", fmt.Errorf("requestState ID: %w", err)
	}
	st.ID = base64.RawURLEncoding.EncodeToString(id[:])
	st.Expires = s.Now().Add(s.TTL).Unix()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encoding requestState: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("requestState nonce: %w", err)
	}
	sealed := s.aead.Seal(nonce, nonce, plain, requestStateAAD)
	return requestStatePrefix + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// open checks token's integrity, expiry and binding to (method, name,
// digest, principal) and returns its contents.
func (s *Sealer) Open(token, method, name, digest, principal string) (*State, error) {
	rest, ok := strings.CutPrefix(token, requestStatePrefix)
	if !ok {
		return nil, ErrInvalid
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return nil, ErrInvalid
	}
	nonce, ct := raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():]
	plain, err := s.aead.Open(nil, nonce, ct, requestStateAAD)
	if err != nil {
		return nil, ErrInvalid
	}
	var st State
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, ErrInvalid
	}
	if s.Now().Unix() > st.Expires {
		return nil, ErrExpired
	}
	switch {
	case st.Method != method:
		return nil, fmt.Errorf("%w: it was issued for %s, not %s", ErrMismatch, st.Method, method)
	case st.Name != name:
		return nil, fmt.Errorf("%w: it was issued for %q, not %q", ErrMismatch, st.Name, name)
	case st.Digest != digest:
		return nil, fmt.Errorf("%w: the arguments differ from the round that issued it", ErrMismatch)
	case st.Principal != principal:
		return nil, ErrPrincipal
	}
	return &st, nil
}

// ArgsDigest is a digest of a call's arguments that does not depend on key
// order or whitespace: the client resends "the same params", not the same
// bytes.
func ArgsDigest(args json.RawMessage) (string, error) {
	canon, err := canonicalJSON(args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// canonicalJSON re-encodes raw with sorted object keys and numbers kept
// verbatim. Absent or null arguments are the empty object.
func canonicalJSON(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}"), nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return json.Marshal(v)
}
