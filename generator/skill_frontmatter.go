package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// frontmatterRE finds a SKILL.md's frontmatter: a first line of ---, the
// YAML, and the next line of --- (spaces and tabs may follow it). It is the
// rule the conformance suite and hosts apply when they compare a SKILL.md
// with its skills/list entry.
var frontmatterRE = regexp.MustCompile(`(?s)\A---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\z)`)

// frontmatter is a SKILL.md's YAML frontmatter, rendered as the JSON object
// a skills/list entry carries.
type frontmatter struct {
	// json is the frontmatter as a JSON object, keys in written order; nil
	// when a value has no JSON form.
	json []byte
	// root is the YAML mapping, for the checks of the Agent Skills fields.
	root *yaml.Node
	// line is the SKILL.md line of the YAML's first line, minus one.
	line int
}

// fmProblem is a problem found in a frontmatter, at a line and column of
// the SKILL.md.
type fmProblem struct {
	line, col int
	pointer   string
	warning   bool
	hint, msg string
}

// parseFrontmatter reads the frontmatter of a SKILL.md; when the YAML is a
// mapping with values JSON cannot hold, it returns the frontmatter without
// its JSON, for the field checks, along with the problems. The YAML is read by
// the YAML 1.2 core schema, which is what hosts use: a plain scalar is a
// null, a boolean, an integer or a float only when the core schema says so
// (yes, 2024-01-01 and 1_000 are strings), so that the JSON here equals what
// a host parses out of the file.
func parseFrontmatter(data []byte, limits Limits) (*frontmatter, []fmProblem) {
	text := bytes.TrimPrefix(data, []byte("\uFEFF"))
	m := frontmatterRE.FindSubmatch(text)
	if m == nil {
		return nil, []fmProblem{{line: 1, col: 1, msg: "SKILL.md does not begin with YAML frontmatter",
			hint: "start the file with a line ---, then name: and description:, then a line ---"}}
	}
	if len(m[1]) > limits.MaxFrontmatterBytes {
		return nil, []fmProblem{{line: 2, col: 1, msg: fmt.Sprintf("the frontmatter holds %d bytes; it may hold at most %s",
			len(m[1]), byteSize(limits.MaxFrontmatterBytes)),
			hint: "move long text into the instructions below the frontmatter"}}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(m[1], &doc); err != nil {
		line := 1
		msg := err.Error()
		// yaml.v3 says "yaml: line N: what"; report N in the SKILL.md.
		if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
			if n, after, ok := strings.Cut(rest, ": "); ok {
				if v, err := strconv.Atoi(n); err == nil {
					line, msg = v, after
				}
			}
		}
		msg = strings.TrimPrefix(msg, "yaml: ")
		return nil, []fmProblem{{line: line + 1, col: 1, msg: "frontmatter is not YAML: " + msg}}
	}
	fm := &frontmatter{line: 1}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, []fmProblem{{line: 2, col: 1, msg: "frontmatter is not a YAML mapping",
			hint: "write name: and description: as keys"}}
	}
	fm.root = doc.Content[0]
	c := &fmConverter{fm: fm, limits: limits}
	var buf bytes.Buffer
	c.value(&buf, fm.root, "", 0)
	if len(c.problems) == 0 {
		fm.json = buf.Bytes()
	}
	return fm, c.problems
}

// fmConverter renders YAML nodes as JSON, collecting problems. It writes
// every alias out where it stands, as a host's YAML parser does, within
// Limits.MaxFrontmatterAliases and MaxFrontmatterBytes: it stops at the
// first alias or byte past them, so that its work is bounded by the
// limits, not by what the aliases would expand to.
type fmConverter struct {
	fm       *frontmatter
	limits   Limits
	problems []fmProblem
	aliases  int  // aliases written out so far
	stopped  bool // a limit was passed: the rest is not read
}

func (c *fmConverter) problem(n *yaml.Node, pointer, hint, format string, args ...any) {
	c.problems = append(c.problems, fmProblem{line: n.Line + c.fm.line, col: n.Column, pointer: pointer,
		hint: hint, msg: fmt.Sprintf(format, args...)})
}

// maxYAMLDepth bounds nesting, aliases included (an alias may name its own
// ancestor).
const maxYAMLDepth = 64

func (c *fmConverter) value(buf *bytes.Buffer, n *yaml.Node, pointer string, depth int) {
	switch {
	case c.stopped:
		return
	case depth > maxYAMLDepth:
		c.problem(n, pointer, "", "frontmatter nests deeper than %d levels (or an alias refers to itself)", maxYAMLDepth)
		c.stopped = true
		return
	case buf.Len() > c.limits.MaxFrontmatterBytes:
		c.problem(n, pointer, "write the values out",
			"the frontmatter as JSON (its aliases written out) passes %s here, the most it may hold", byteSize(c.limits.MaxFrontmatterBytes))
		c.stopped = true
		return
	}
	switch n.Kind {
	case yaml.AliasNode:
		if c.aliases++; c.aliases > c.limits.MaxFrontmatterAliases {
			c.problem(n, pointer, "write the values out",
				"the frontmatter writes out more than %d aliases (each counted every time it is reached)", c.limits.MaxFrontmatterAliases)
			c.stopped = true
			return
		}
		c.value(buf, n.Alias, pointer, depth+1)
	case yaml.MappingNode:
		buf.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				c.problem(k, pointer, "use a plain string as the key", "a key that is a YAML %s has no JSON form", kindName(k.Kind))
				continue
			}
			if k.Tag == "!!merge" {
				c.problem(k, pointer, "write the keys out", "merge keys (<<) are read differently by YAML 1.1 and 1.2 parsers")
				continue
			}
			key := k.Value
			if seen[key] {
				c.problem(k, pointer+"/"+escapePointer(key), "remove one of them", "key %q appears twice in the same mapping", key)
				continue
			}
			seen[key] = true
			if len(seen) > 1 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, key)
			buf.WriteByte(':')
			c.value(buf, v, pointer+"/"+escapePointer(key), depth+1)
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, el := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			c.value(buf, el, fmt.Sprintf("%s/%d", pointer, i), depth+1)
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		c.scalar(buf, n, pointer)
	default:
		c.problem(n, pointer, "", "unexpected YAML %s", kindName(n.Kind))
	}
}

// The plain scalars of the YAML 1.2 core schema that are not strings.
var (
	coreNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	coreBool  = regexp.MustCompile(`^(?:true|True|TRUE|false|False|FALSE)$`)
	coreInt   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	coreOct   = regexp.MustCompile(`^0o[0-7]+$`)
	coreHex   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	coreFloat = regexp.MustCompile(`^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$`)
	coreInf   = regexp.MustCompile(`^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$`)
)

func (c *fmConverter) scalar(buf *bytes.Buffer, n *yaml.Node, pointer string) {
	v := n.Value
	kind := scalarKind(n)
	if kind == "" {
		c.problem(n, pointer, "remove the tag", "tag %s is not one of the YAML core schema's, so hosts may read the value differently", n.Tag)
		return
	}
	switch kind {
	case "!!str":
		writeJSONString(buf, v)
	case "!!null":
		buf.WriteString("null")
	case "!!bool":
		if !coreBool.MatchString(v) {
			c.problem(n, pointer, "", "%q is not a YAML boolean", v)
			return
		}
		buf.WriteString(strconv.FormatBool(v[0] == 't' || v[0] == 'T'))
	case "!!int":
		i := new(big.Int)
		ok := false
		switch {
		case coreOct.MatchString(v):
			_, ok = i.SetString(v[2:], 8)
		case coreHex.MatchString(v):
			_, ok = i.SetString(v[2:], 16)
		case coreInt.MatchString(v):
			_, ok = i.SetString(strings.TrimPrefix(v, "+"), 10)
		}
		if !ok {
			c.problem(n, pointer, "", "%q is not a YAML integer", v)
			return
		}
		buf.WriteString(i.String())
	case "!!float":
		f, err := strconv.ParseFloat(strings.TrimPrefix(v, "+"), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			c.problem(n, pointer, "quote it to keep it as a string", "%s is not a number JSON can hold", v)
			return
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	}
}

// scalarKind is what a scalar is by the YAML 1.2 core schema: "!!str",
// "!!null", "!!bool", "!!int" or "!!float"; "" for a tag outside it.
func scalarKind(n *yaml.Node) string {
	v := n.Value
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		switch n.Tag {
		case "!!str", "!!null", "!!bool", "!!int", "!!float":
			return n.Tag
		}
		return ""
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 || n.Tag == "!":
		return "!!str"
	case coreNull.MatchString(v):
		return "!!null"
	case coreBool.MatchString(v):
		return "!!bool"
	case coreInt.MatchString(v) || coreOct.MatchString(v) || coreHex.MatchString(v):
		return "!!int"
	case coreFloat.MatchString(v) || coreInf.MatchString(v):
		return "!!float"
	}
	return "!!str"
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "scalar"
}

// writeJSONString writes s as a JSON string, without escaping <, > and &.
func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)               // a string always encodes
	buf.Truncate(buf.Len() - 1) // the newline Encode adds
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// field finds a top-level frontmatter key's value, or nil.
func (fm *frontmatter) field(key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(fm.root.Content); i += 2 {
		if fm.root.Content[i].Value == key {
			return fm.root.Content[i], resolveAlias(fm.root.Content[i+1])
		}
	}
	return nil, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && i < maxYAMLDepth; i++ {
		n = n.Alias
	}
	return n
}
