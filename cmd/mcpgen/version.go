package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mcpgen's version (or, built from a checkout, its commit)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			fmt.Fprintf(stdout, "mcpgen %s\n", describeBuild(bi, func(dir string) string { return checkoutHead(cmd.Context(), dir) }))
			return nil
		},
	}
}

// describeBuild says what mcpgen was built from: a published version
// (v1.2.3), or a checkout, named by its commit when the build recorded one
// (go build stamps vcs.revision; -buildvcs=false or a build through a
// replace does not) and by its folder when a replace points at it. The
// placeholder version a replace requires (v0.0.0-00010101000000-...) and
// the pseudo-versions of a checkout's own builds are never shown as if they
// were releases.
//
// head, given a checkout's folder, returns its current commit ("" when
// unknown): a build that recorded none (a replace, -buildvcs=false) is named
// by the commit its checkout is at now, which is what go run and go tool
// build from.
func describeBuild(bi *debug.BuildInfo, head func(dir string) string) string {
	if bi == nil {
		return "(unknown build: no build information)"
	}
	mod := &bi.Main
	if mod.Path != selfModule {
		// Built as a dependency (go tool mcpgen in a project).
		for _, d := range bi.Deps {
			if d.Path == selfModule {
				mod = d
				break
			}
		}
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if mod.Replace != nil {
		if mod.Replace.Version == "" { // a folder: a checkout
			if rev := head(mod.Replace.Path); rev != "" {
				return "built from a checkout at " + rev + " (" + mod.Replace.Path + ", through a replace in go.mod)"
			}
			return "built from a checkout at " + mod.Replace.Path + " (through a replace in go.mod; its commit is unknown)"
		}
		mod = mod.Replace
	}
	rev := settings["vcs.revision"]
	published := strings.HasPrefix(mod.Version, "v") && mod.Version != unpublishedVersion && !isPseudoVersion(mod.Version)
	switch {
	case published:
		return mod.Version
	case mod == &bi.Main && rev != "":
		s := "built from a checkout at " + shortRevision(rev)
		if t := settings["vcs.time"]; t != "" {
			s += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			s += " with uncommitted changes"
		}
		return s
	case mod == &bi.Main:
		if dir := checkoutDir(); dir != "" {
			if rev := head(dir); rev != "" {
				return "built from a checkout at " + rev + " (its commit now: the build recorded none, as with -buildvcs=false)"
			}
		}
		return "built from a checkout (its commit is unknown: the build recorded none, as with -buildvcs=false)"
	}
	return "built from " + mod.Path + " " + mod.Version
}

// isPseudoVersion reports whether v is a Go pseudo-version
// (v0.0.0-20060102150405-abcdefabcdef and its forms), which names a commit,
// not a release.
func isPseudoVersion(v string) bool {
	v = strings.TrimSuffix(v, "+dirty")
	i := strings.LastIndex(v, "-")
	if i < 0 || len(v)-i-1 != 12 {
		return false
	}
	rest := v[:i]
	j := strings.LastIndexAny(rest, "-.")
	return j >= 0 && len(rest)-j-1 == 14
}

// checkoutHead is the commit dir's repository is at, from git, or "".
func checkoutHead(ctx context.Context, dir string) string {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		return shortRevision(rev) + " with uncommitted changes"
	}
	return shortRevision(rev)
}

func shortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
