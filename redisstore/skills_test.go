package redisstore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"
)

// TestSkillThroughAnotherReplica gets a skill and reads its SKILL.md
// through two replicas other than the one that started the session, and
// the file matches the digest and size of the entry: the skills extension
// needs nothing shared between replicas.
func TestSkillThroughAnotherReplica(t *testing.T) {
	_, c, ctx := threeReplicas(t, 30*time.Second)
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const uri = "skill://replica-notes/SKILL.md"
	m, _, err := s.rpc(ctx, c.urls[1], "skills/get", map[string]any{"uri": uri})
	if err != nil || m.Error != nil {
		t.Fatalf("skills/get on replica 1: %v %+v", err, m)
	}
	var got struct {
		Skill struct {
			Resources []struct {
				URI, Digest string
				Size        int
			}
		}
	}
	if err := json.Unmarshal(m.Result, &got); err != nil || len(got.Skill.Resources) != 1 {
		t.Fatalf("skills/get: %s (%v)", m.Result, err)
	}
	m, _, err = s.rpc(ctx, c.urls[2], "resources/read", map[string]any{"uri": uri})
	if err != nil || m.Error != nil {
		t.Fatalf("resources/read on replica 2: %v %+v", err, m)
	}
	var read struct {
		Contents []struct{ Text string }
	}
	if err := json.Unmarshal(m.Result, &read); err != nil || len(read.Contents) != 1 {
		t.Fatalf("resources/read: %s (%v)", m.Result, err)
	}
	sum := sha256.Sum256([]byte(read.Contents[0].Text))
	want := got.Skill.Resources[0]
	if d := "sha256:" + hex.EncodeToString(sum[:]); d != want.Digest || len(read.Contents[0].Text) != want.Size {
		t.Errorf("read %d bytes with digest %s; the entry says %d bytes, %s", len(read.Contents[0].Text), d, want.Size, want.Digest)
	}
}
