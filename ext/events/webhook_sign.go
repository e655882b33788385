package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// Webhook signatures follow Standard Webhooks: the secret is "whsec_" and
// the base64 of 24 to 64 random bytes (the client's, never the server's);
// the signature is "v1," and the base64 of HMAC-SHA256 over
// webhook-id + "." + webhook-timestamp + "." + the raw body; during a
// rotation the header carries one signature per secret, space-separated.

const secretPrefix = "whsec_"

// parseSecret decodes a whsec_ secret, or says what is wrong with it
// (never echoing it).
func parseSecret(s string) ([]byte, error) {
	if !strings.HasPrefix(s, secretPrefix) {
		return nil, errors.New(`delivery.secret must start with "whsec_" (a Standard Webhooks secret)`)
	}
	b, err := base64.StdEncoding.DecodeString(s[len(secretPrefix):])
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(s[len(secretPrefix):])
	}
	if err != nil {
		return nil, errors.New(`delivery.secret must be "whsec_" followed by standard base64`)
	}
	if len(b) < 24 || len(b) > 64 {
		return nil, errors.New("delivery.secret must encode 24 to 64 random bytes, got " + strconv.Itoa(len(b)))
	}
	return b, nil
}

// signature is the webhook-signature header of one message.
func signature(secrets [][]byte, msgID string, ts int64, body []byte) string {
	var sb strings.Builder
	prefix := msgID + "." + strconv.FormatInt(ts, 10) + "."
	for i, key := range secrets {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(prefix))
		m.Write(body)
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString("v1,")
		sb.WriteString(base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return sb.String()
}

// VerifySignature checks a webhook-signature header against secret the
// way a Standard Webhooks receiver does (any one signature may match); it
// is for tests and receivers written in Go. It does not check the
// timestamp's freshness.
func VerifySignature(secret, msgID, ts string, body []byte, header string) bool {
	key, err := parseSecret(secret)
	if err != nil {
		return false
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	want := signature([][]byte{key}, msgID, t, body)
	for _, sig := range strings.Fields(header) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}
