package events

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStandardWebhooksVerifiesEveryDelivery hands every kind of delivery
// the engine signs to the standardwebhooks package from npm, the Standard
// Webhooks reference verifier: events, the verification handshake, a gap
// envelope, and deliveries signed with two secrets during a rotation
// (each must verify under both). interop/run.sh installs Node 22 and the
// package and runs it; without EVENTS_NODE it is skipped.
func TestStandardWebhooksVerifiesEveryDelivery(t *testing.T) {
	node := os.Getenv("EVENTS_NODE")
	if node == "" {
		t.Skip("EVENTS_NODE is not set: run ext/events/interop/run.sh, which installs Node 22 and standardwebhooks")
	}
	rc := newReceiver(t)
	o := loopback()
	o.Webhook.MaxPending = 2
	e := newEngine(t, o, noteAdded())
	old, fresh := newSecret(24), newSecret(64)
	subscribe(t, e, alice, rc.url("/h"), old, `{}`)
	// Hold deliveries so the queue fills and a gap envelope is sent.
	release := make(chan struct{})
	rc.setAnswer(func(w http.ResponseWriter, r *http.Request, p post) {
		if p.Kind == "event" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})
	for i := range 5 {
		emit(t, e, "note_added", note(i, "held"))
	}
	waitPost(t, rc, "gap")
	close(release)
	rc.setAnswer(nil)
	eventually(t, "the held deliveries to finish", func() bool {
		_, queued, _ := e.store.Watermark(context.Background(), "note_added", subscriptionID(principalKey(alice.Principal), rc.url("/h"), "note_added", json.RawMessage(`{}`)))
		return !queued
	})
	subscribe(t, e, alice, rc.url("/h"), fresh, `{}`) // rotation: old and new sign for a while
	emit(t, e, "note_added", note(9, "rotated"))
	defer func() {
		if t.Failed() {
			for _, p := range rc.all("") {
				t.Logf("%s %s", p.Kind, p.Body)
			}
		}
	}()
	eventually(t, "the rotated delivery", func() bool {
		for _, p := range rc.all("event") {
			if strings.Contains(string(p.Body), "rotated") {
				return true
			}
		}
		return false
	})

	type delivery struct {
		Name    string            `json:"name"`
		Secrets []string          `json:"secrets"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	var out []delivery
	kinds := map[string]int{}
	for i, p := range rc.all("") {
		secrets := []string{old}
		if strings.Contains(string(p.Body), "rotated") {
			secrets = []string{old, fresh}
		}
		h := map[string]string{}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			h[k] = p.Header.Get(k)
		}
		kinds[p.Kind]++
		out = append(out, delivery{Name: p.Kind + "#" + string(rune('0'+i%10)), Secrets: secrets, Headers: h, Body: base64.StdEncoding.EncodeToString(p.Body)})
	}
	if kinds["verification"] != 1 || kinds["gap"] < 1 || kinds["event"] < 3 {
		t.Fatalf("recorded %v", kinds)
	}
	file := filepath.Join(t.TempDir(), "deliveries.json")
	b, _ := json.Marshal(out)
	os.WriteFile(file, b, 0o600)
	cmd := exec.Command(node, "interop/verify.mjs", file)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join("interop", "node_modules"))
	done := make(chan struct{})
	var res []byte
	var err error
	go func() { res, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	t.Logf("standardwebhooks on %d deliveries (%v): %s", len(out), kinds, strings.TrimSpace(string(res)))
	if err != nil {
		t.Fatalf("standardwebhooks refused a delivery: %v", err)
	}
}
