package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// Small helpers over parsed JSON values and key sets, shared by the loaders,
// the type mapper and the emitters.

func keySet(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// listKeys is the keys of m, sorted and joined for a message.
func listKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// str returns the string at key of obj, reporting a wrong type.
func str(at place, key string, required bool, hint string, rep *reporter) (string, bool) {
	n := at.node.Get(key)
	if n == nil {
		if required {
			rep.errorf(at, hint, "%q is missing", key)
		}
		return "", false
	}
	if n.Kind != jsontree.String {
		rep.errorf(place{at.src, n}, "", "%q must be a string, not a %s", key, n.Kind)
		return "", false
	}
	return n.Str, true
}

// before orders places by file, then by position in the file: input order.
func before(a, b place) bool {
	if a.src.path != b.src.path {
		return a.src.path < b.src.path
	}
	return a.node.Start < b.node.Start
}

// compactJSON is the value at n as compact JSON, for messages.
func compactJSON(doc *jsontree.Doc, n *jsontree.Node) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, doc.Raw(n)); err != nil {
		return string(doc.Raw(n))
	}
	return buf.String()
}

// jsonString is s as a JSON string, with <, > and & as written.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// scalar converts a JSON scalar to string, int64 (integers) or float64.
func scalar(n *jsontree.Node) any {
	switch n.Kind {
	case jsontree.String:
		return n.Str
	case jsontree.Number:
		if isInteger(n.Num) {
			if v, err := strconv.ParseInt(n.Num, 10, 64); err == nil {
				return v
			}
		}
		v, _ := strconv.ParseFloat(n.Num, 64)
		return v
	case jsontree.Bool:
		return n.Bool
	}
	return nil
}

func isInteger(num string) bool { return !strings.ContainsAny(num, ".eE") }

func fitsInt64(num string) bool {
	_, err := strconv.ParseInt(num, 10, 64)
	return err == nil
}

// jsonInt reads a whole JSON number that fits an int64.
func jsonInt(n *jsontree.Node) (int64, bool) {
	if n.Kind != jsontree.Number || !isInteger(n.Num) || !fitsInt64(n.Num) {
		return 0, false
	}
	var v int64
	_, err := fmt.Sscan(n.Num, &v)
	return v, err == nil
}
