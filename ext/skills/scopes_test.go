package skills

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
)

// Skills with scopes on a server with Options.Auth and FilterLists, over
// HTTP (stdio is not authenticated): a caller whose token lacks a skill's
// scope neither sees it in skills/list and resources/list nor gets or reads
// it (403 insufficient_scope, so that its client can step up), while a
// token with the scope sees and reads everything.

const testIssuer = "https://as.example"

// scopeTokens are the tokens the test verifier knows: pdf grants the scope
// of pdf-processing, all that of reports too.
var scopeTokens = map[string][]string{
	"pdf": {"pdf:read"},
	"all": {"pdf:read", "reports:read"},
}

func newAuthSkillServer(t *testing.T) *runtime.Server {
	skills := servedSkills()
	skills[0].Scopes = []string{"pdf:read"} // pdf-processing; reports has reports:read, release-notes none
	verifier := runtime.TokenVerifierFunc(func(_ context.Context, token string) (*runtime.Principal, error) {
		scopes, known := scopeTokens[token]
		if !known {
			return nil, fmt.Errorf("%w: unknown token", runtime.ErrInvalidToken)
		}
		return &runtime.Principal{Issuer: testIssuer, Subject: token, Scopes: scopes, Expiry: time.Now().Add(time.Hour)}, nil
	})
	return skillServer(t, skills, Options{PageSize: pageSize, DirectoryRead: true}, runtime.Options{Auth: &runtime.Auth{
		Resource:             "https://skills.example/mcp",
		AuthorizationServers: []string{testIssuer},
		Verifier:             verifier,
		FilterLists:          true,
	}})
}

// listBoth lists the skills and the resources (both cached privately:
// what they show depends on the token) and returns the entries and the
// URIs of the entries and of the resources.
func listBoth(t *testing.T, c *mcptest.Client) (entries []skillEntry, skills, resources []string) {
	t.Helper()
	entries = listSkills(t, c, pageSize, &privateCache)
	for _, e := range entries {
		skills = append(skills, e.URI)
	}
	r := call(t, c, "resources/list", nil)
	checkCache(t, c, "resources/list", r, &runtime.CacheHint{Scope: runtime.CachePrivate, TTL: r.ttl(t)})
	var listed []runtime.ResourceInfo
	r.decode(t, "resources", &listed)
	if r["nextCursor"] != nil {
		t.Fatalf("resources/list spans pages: %s", r["nextCursor"])
	}
	for _, res := range listed {
		resources = append(resources, res.URI)
	}
	slices.Sort(resources)
	return entries, skills, resources
}

// ttl is the result's ttlMs, for checks that leave it to the runtime.
func (r result) ttl(t *testing.T) time.Duration {
	t.Helper()
	var ms int64
	if r["ttlMs"] != nil {
		r.decode(t, "ttlMs", &ms)
	}
	return time.Duration(ms) * time.Millisecond
}

// filesOf are the URIs of the files of served whose URI starts with one of
// prefixes, sorted.
func filesOf(prefixes ...string) []string {
	var out []string
	for uri := range served {
		for _, p := range prefixes {
			if strings.HasPrefix(uri, p) {
				out = append(out, uri)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestSkillScopesRefused: with a token that grants pdf:read only, reports
// is hidden from both lists and refused, whatever names it: skills/get,
// resources/read of each of its files, resources/directory/read of its
// folder; the skill the token may read is served.
func TestSkillScopesRefused(t *testing.T) {
	eachClient(t, newAuthSkillServer, func(t *testing.T, c *mcptest.Client, _ string) {
		_, skills, resources := listBoth(t, c)
		if want := []string{"skill://pdf-processing/SKILL.md", "skill://release-notes/SKILL.md"}; !slices.Equal(skills, want) {
			t.Errorf("skills/list shows %v, want %v", skills, want)
		}
		if want := filesOf("skill://pdf-processing/", "skill://release-notes/"); !slices.Equal(resources, want) {
			t.Errorf("resources/list shows %v, want %v", resources, want)
		}
		for _, tc := range []struct {
			method, uri string
		}{
			{"skills/get", "skill://reports/SKILL.md"},
			{"resources/read", "skill://reports/SKILL.md"},
			{"resources/read", "skill://reports/today.md"},
			{"resources/directory/read", "skill://reports"},
		} {
			_, err := c.Request(t.Context(), tc.method, map[string]any{"uri": tc.uri})
			var refused *mcptest.HTTPError
			if !errors.As(err, &refused) || refused.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s without reports:read: %v, want 403", tc.method, tc.uri, err)
				continue
			}
			// The challenge asks for the missing scope, so that the client
			// can step up.
			challenge := refused.Header.Get("WWW-Authenticate")
			if !strings.Contains(challenge, `error="insufficient_scope"`) || !strings.Contains(challenge, `scope="reports:read`) {
				t.Errorf("%s %s: challenge %q, want insufficient_scope asking for reports:read", tc.method, tc.uri, challenge)
			}
		}
		call(t, c, "skills/get", map[string]any{"uri": "skill://pdf-processing/SKILL.md"})
		for _, uri := range filesOf("skill://pdf-processing/") {
			readFile(t, c, uri)
		}
		call(t, c, "resources/directory/read", map[string]any{"uri": "skill://pdf-processing"})
	}, true, mcptest.Header("Authorization", "Bearer pdf"))
}

// TestSkillScopesGranted: a token with every scope sees every skill and
// file, and gets and reads them all.
func TestSkillScopesGranted(t *testing.T) {
	eachClient(t, newAuthSkillServer, func(t *testing.T, c *mcptest.Client, _ string) {
		entries, skills, resources := listBoth(t, c)
		if want := []string{"skill://pdf-processing/SKILL.md", "skill://reports/SKILL.md", "skill://release-notes/SKILL.md"}; !slices.Equal(skills, want) {
			t.Errorf("skills/list shows %v, want %v", skills, want)
		}
		if want := filesOf("skill://"); !slices.Equal(resources, want) {
			t.Errorf("resources/list shows %v, want %v", resources, want)
		}
		for _, uri := range skills {
			call(t, c, "skills/get", map[string]any{"uri": uri})
		}
		manifests := map[string]skillResource{}
		for _, e := range entries {
			for _, f := range e.manifest(t) {
				manifests[f.URI] = f
			}
		}
		for _, uri := range resources {
			if data, _ := readFile(t, c, uri); manifests[uri].URI != "" {
				verify(t, manifests[uri], data)
			}
		}
		call(t, c, "resources/directory/read", map[string]any{"uri": "skill://reports"})
	}, true, mcptest.Header("Authorization", "Bearer all"))
}
