// Package docs holds the documentation pages of mcpgen (the *.md files
// here) and, in its tests, the checks that keep them true: every relative
// link and #anchor resolves, the bounds page agrees with the runtime.Options
// field docs, and the README's table of what init writes lists every file.
package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// pages are the Markdown files whose links are checked, relative to the
// repository root: README.md and every page of docs/.
func pages(t *testing.T) []string {
	t.Helper()
	found, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, f := range found {
		out = append(out, "docs/"+f)
	}
	return out
}

// repoPath is a path relative to the repository root, as seen from here.
func repoPath(rel string) string { return filepath.Join("..", filepath.FromSlash(rel)) }

// TestLinksResolve: every relative link and #anchor in README.md and
// docs/*.md points at a file that exists and, for an anchor, at a heading
// (or an HTML id) the target renders with that anchor on GitHub.
func TestLinksResolve(t *testing.T) {
	anchorCache := map[string][]string{}
	anchorsOf := func(rel string) ([]string, error) {
		if a, ok := anchorCache[rel]; ok {
			return a, nil
		}
		data, err := os.ReadFile(repoPath(rel))
		if err != nil {
			return nil, err
		}
		a := markdownAnchors(string(data))
		anchorCache[rel] = a
		return a, nil
	}
	for _, page := range pages(t) {
		data, err := os.ReadFile(repoPath(page))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(data)) {
			target, anchor, _ := strings.Cut(l.target, "#")
			where := fmt.Sprintf("%s:%d: link %q", page, l.line, l.target)
			file := page
			if target != "" {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(page), target))
				if strings.HasPrefix(file, "../") {
					t.Errorf("%s: points outside the repository", where)
					continue
				}
				if _, err := os.Stat(repoPath(file)); err != nil {
					t.Errorf("%s: %s does not exist (links are relative to %s)", where, file, filepath.ToSlash(filepath.Dir(page)))
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			anchors, err := anchorsOf(file)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if !slices.Contains(anchors, anchor) {
				t.Errorf("%s: %s has no heading whose anchor is #%s; its anchors are: %s", where, file, anchor, strings.Join(anchors, ", "))
			}
		}
	}
}

// link is one link target of a Markdown page and the line it is on.
type link struct {
	target string
	line   int
}

var (
	// inlineLinkRE matches [text](target) and ![alt](target), with an
	// optional "title"; the text may hold backticks but no brackets.
	inlineLinkRE = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refDefRE matches a reference definition, [label]: target.
	refDefRE = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	// codeSpanRE matches inline code, whose brackets are not links.
	codeSpanRE = regexp.MustCompile("`+[^`]*`+")
	// schemeRE matches a target with a URL scheme: not a relative link.
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// markdownLinks returns the relative link targets of a page (same-page
// anchors included), outside fenced code blocks and code spans.
func markdownLinks(doc string) []link {
	var out []link
	for i, line := range proseLines(doc) {
		if line == "" {
			continue
		}
		line = codeSpanRE.ReplaceAllString(line, "")
		var targets []string
		for _, m := range inlineLinkRE.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refDefRE.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, tg := range targets {
			if schemeRE.MatchString(tg) || strings.HasPrefix(tg, "//") {
				continue
			}
			out = append(out, link{target: tg, line: i + 1})
		}
	}
	return out
}

// proseLines returns the page's lines with those of fenced code blocks
// blanked, so that line numbers stay true.
func proseLines(doc string) []string {
	lines := strings.Split(doc, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" {
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				fence = trimmed[:3]
				lines[i] = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) {
			fence = ""
		}
		lines[i] = ""
	}
	return lines
}

var (
	headingRE = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlIDRE  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	// inlineMarkupRE matches what GitHub renders away before it makes a
	// heading's anchor: links keep their text, images and HTML tags vanish.
	imageRE    = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	linkTextRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	htmlTagRE  = regexp.MustCompile(`<[^>]+>`)
)

// markdownAnchors returns the anchors GitHub gives a page: one per ATX
// heading (repeats get -1, -2, ...), plus explicit HTML ids.
func markdownAnchors(doc string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range proseLines(doc) {
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := headingSlug(m[2])
		if n := seen[slug]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", slug, n))
		} else {
			out = append(out, slug)
		}
		seen[slug]++
	}
	sort.Strings(out)
	return out
}

// headingSlug is GitHub's anchor for a heading's text: the rendered text in
// lower case, without punctuation other than '-' and '_', spaces turned
// into '-' (each one: "a - b" gives "a---b").
func headingSlug(text string) string {
	text = imageRE.ReplaceAllString(text, "")
	text = linkTextRE.ReplaceAllString(text, "$1")
	text = htmlTagRE.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestHeadingSlug pins the anchor rules on headings whose GitHub anchors
// are known.
func TestHeadingSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"URL-mode elicitation: completion and -32042":                                "url-mode-elicitation-completion-and--32042",
		"What a `requestState` proves, and what it does not":                         "what-a-requeststate-proves-and-what-it-does-not",
		"One rule for handlers: work before a question may run again":                "one-rule-for-handlers-work-before-a-question-may-run-again",
		"What the tests prove (`bash redisstore/test.sh`, run by `scripts/test.sh`)": "what-the-tests-prove-bash-redisstoretestsh-run-by-scriptstestsh",
		"Deployment: several replicas behind a load balancer (Redis)":                "deployment-several-replicas-behind-a-load-balancer-redis",
		"See [the README](../README.md) first":                                       "see-the-readme-first",
		"snake_case and Ünïcode":                                                     "snake_case-and-ünïcode",
	} {
		if got := headingSlug(heading); got != want {
			t.Errorf("headingSlug(%q) = %q, want %q", heading, got, want)
		}
	}
	got := markdownAnchors("# A\n## A\n```\n# not a heading\n```\n### A\n<a id=\"custom\"></a>\n")
	if want := []string{"a", "a-1", "a-2", "custom"}; !slices.Equal(got, want) {
		t.Errorf("markdownAnchors: %v, want %v", got, want)
	}
}
