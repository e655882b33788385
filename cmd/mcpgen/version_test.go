package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	head := func(string) string { return "abcdef123456" }
	none := func(string) string { return "" }
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		head func(string) string
		want string
	}{
		{"published", &debug.BuildInfo{Main: debug.Module{Path: selfModule, Version: "v1.2.3"}}, none, "v1.2.3"},
		{"checkout with vcs", &debug.BuildInfo{Main: debug.Module{Path: selfModule, Version: "v0.0.0-20260101000000-0123456789ab+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			none, "built from a checkout at 0123456789ab (2026-01-01T00:00:00Z) with uncommitted changes"},
		{"go tool through a replace", &debug.BuildInfo{Main: debug.Module{Path: "example.com/proj"},
			Deps: []*debug.Module{{Path: selfModule, Version: unpublishedVersion, Replace: &debug.Module{Path: "/src/mcpgen"}}}},
			head, "built from a checkout at abcdef123456 (/src/mcpgen, through a replace in go.mod)"},
		{"replace, no git", &debug.BuildInfo{Main: debug.Module{Path: "example.com/proj"},
			Deps: []*debug.Module{{Path: selfModule, Version: unpublishedVersion, Replace: &debug.Module{Path: "/src/mcpgen"}}}},
			none, "its commit is unknown"},
		{"-buildvcs=false", &debug.BuildInfo{Main: debug.Module{Path: selfModule, Version: "(devel)"}}, none, "built from a checkout"},
		{"no build info", nil, none, "unknown build"},
	} {
		got := describeBuild(tc.bi, tc.head)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "00010101") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
