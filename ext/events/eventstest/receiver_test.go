package eventstest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sign is a Standard Webhooks signature computed here, independently of
// package events, so that the receiver is checked against the scheme and
// not against itself.
func sign(t *testing.T, secret, id string, ts int64, body string) string {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "." + body))
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func send(t *testing.T, r *Receiver, id string, ts int64, sig, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	req.Header.Set("X-MCP-Subscription-Id", "sub-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestReceiverVerifiesDeduplicatesAndDecodes(t *testing.T) {
	r := NewReceiver(t)
	now := time.Now().Unix()
	ch := `{"type":"verification","challenge":"abc123"}`
	if code, body := send(t, r, "msg_v", now, sign(t, r.Secret, "msg_v", now, ch), ch); code != 200 || !strings.Contains(body, `"challenge":"abc123"`) {
		t.Errorf("verification: %d %s", code, body)
	}
	if code, _ := send(t, r, "msg_v2", now, "v1,AAAA", ch); code != 401 || r.Verifications() != 1 {
		t.Errorf("an unsigned verification: %d, %d verifications", code, r.Verifications())
	}

	ev := `{"eventId":"e1","name":"note_added","timestamp":"2026-01-01T00:00:00Z","data":{"id":1,"title":"t"}}`
	good := sign(t, r.Secret, "msg_1", now, ev)
	for range 2 { // a retry of one delivery is handed out once
		if code, body := send(t, r, "msg_1", now, good, ev); code != 204 {
			t.Fatalf("a signed event: %d %s", code, body)
		}
	}
	if code, _ := send(t, r, "msg_2", now, good, ev); code != 401 { // signed for another id
		t.Errorf("a signature over another webhook-id: %d", code)
	}
	old := now - 3600
	if code, _ := send(t, r, "msg_3", old, sign(t, r.Secret, "msg_3", old, ev), ev); code != 401 {
		t.Errorf("an hour-old timestamp: %d", code)
	}
	gap := `{"type":"gap","cursor":"c"}`
	send(t, r, "msg_gap", now, sign(t, r.Secret, "msg_gap", now, gap), gap)
	ev2 := strings.Replace(ev, `"e1"`, `"e2"`, 1)
	send(t, r, "msg_4", now, sign(t, r.Secret, "msg_4", now, ev2), ev2)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	type note struct {
		ID    int
		Title string
	}
	for _, want := range []string{"e1", "e2"} { // the gap is skipped, the retry was not queued
		n, d, err := NextEvent[note](ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if d.Event.EventID != want || n.ID != 1 || n.Title != "t" || d.SubscriptionID != "sub-1" {
			t.Errorf("got %+v %+v, want event %s", n, d, want)
		}
	}
	if got := len(r.Refusals()); got != 3 {
		t.Errorf("refusals %q, want 3", r.Refusals())
	}
	short, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	if _, err := r.Next(short); err == nil {
		t.Error("Next returned a delivery nobody sent")
	}
}
