package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing/fstest"

	"github.com/mcpgen/mcpgen/ext/skills"
	"github.com/mcpgen/mcpgen/runtime"
)

// replicaSkillMD is the SKILL.md of the one skill every replica serves.
// The catalog lives in each replica's binary, so replicas need nothing
// shared to serve it: a session started on one replica gets the skill and
// reads its files through any other.
const replicaSkillMD = "---\nname: replica-notes\ndescription: Says what the replicas of this server share.\n---\n\n# Replicas\n\nSessions, streams and tasks live in Redis; skills live in the binary.\n"

// addSkill registers the skills extension with the replica-notes skill.
func addSkill(srv *runtime.Server) error {
	sum := sha256.Sum256([]byte(replicaSkillMD))
	return skills.Register(srv, []skills.Skill{{
		Path:        "replica-notes",
		Frontmatter: json.RawMessage(`{"name":"replica-notes","description":"Says what the replicas of this server share."}`),
		FS:          fstest.MapFS{"replica-notes/SKILL.md": {Data: []byte(replicaSkillMD)}},
		Dir:         "replica-notes",
		Files: []skills.File{{Path: "SKILL.md", MIMEType: "text/markdown", Size: int64(len(replicaSkillMD)),
			Digest: "sha256:" + hex.EncodeToString(sum[:])}},
	}}, skills.Options{DirectoryRead: true})
}
