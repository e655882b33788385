package generator

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// Elicitation files: a form (mode "form", with a requestedSchema inside the
// specification's restricted subset, elicit_subset.go) or a URL (mode
// "url"), which tools, prompts and resources list in their
// _meta["mcpgen.dev/elicitations"] and ask through their call handles.

// elicitDef is one elicitation file.
type elicitDef struct {
	at          place
	name        string
	goName      string // x-go-name override, or ""
	description string
	mode        string // "form" or "url"
	message     string
	schema      *jsontree.Node // requestedSchema (form mode)
}

// elicitNamespace is the namespace of elicitation names in the
// loadContext: tools, prompts and resources refer to them.
const elicitNamespace = "elicitation"

// loadElicitRefs reads a _meta elicitations array.
func loadElicitRefs(at place, v *jsontree.Node, refs *[]*jsontree.Node, rep *reporter) bool {
	if v.Kind != jsontree.Array {
		rep.errorf(place{at.src, v}, `write ["confirm_delete", ...]`, "%q must be an array of elicitation names", metaElicitations)
		return false
	}
	ok := true
	seen := map[string]bool{}
	for _, el := range v.Elems {
		switch {
		case el.Kind != jsontree.String:
			rep.errorf(place{at.src, el}, "", "elicitation names are strings, not a %s", el.Kind)
			ok = false
		case seen[el.Str]:
			rep.errorf(place{at.src, el}, "list each elicitation once", "elicitation %q is listed twice", el.Str)
			ok = false
		default:
			seen[el.Str] = true
			*refs = append(*refs, el)
		}
	}
	return ok
}

// referElicitations records the elicitations an input at src lists (what
// names it in the error for one no file defines).
func referElicitations(lc *loadContext, src *source, refs []*jsontree.Node, what string) {
	for _, ref := range refs {
		lc.refer(elicitNamespace, ref.Str, func(known []string) {
			hint := "add an elicitation file with this name to the inputs"
			if len(known) > 0 {
				hint = "add an elicitation file with this name, or use one of: " + strings.Join(known, ", ")
			}
			lc.rep.errorf(place{src, ref}, hint, "%s refers to elicitation %q, which no input file defines", what, ref.Str)
		})
	}
}

func loadElicitation(at place, lc *loadContext) *elicitDef {
	rep := lc.rep
	root := at.node
	e := &elicitDef{at: at}
	ok := true
	for _, mem := range root.Members {
		switch mem.Key {
		case "name", "description", "mode", "message", "requestedSchema":
		case xGoName:
			if v := mem.Value; v.Kind != jsontree.String || !isExportedIdent(v.Str) {
				rep.errorf(place{at.src, v}, "use an exported Go identifier such as \"ConfirmDelete\"", "%q must be an exported Go identifier", xGoName)
				ok = false
			} else {
				e.goName = v.Str
			}
		default:
			rep.errorf(place{at.src, mem.Value}, "an elicitation file holds name, description, mode, message, (form mode) requestedSchema, and x-go-name",
				"unknown key %q in an elicitation", mem.Key)
			ok = false
		}
	}
	name, has := str(at, "name", true, "every elicitation needs a name; tools refer to it in _meta[\""+metaElicitations+"\"]", rep)
	if has && nameRE.MatchString(name) {
		lc.declare(elicitNamespace, name)
	}
	if has && !nameRE.MatchString(name) {
		rep.errorf(place{at.src, root.Get("name")}, nameRule, "elicitation name %q is outside the allowed characters", name)
		ok = false
	}
	ok = ok && has
	e.name = name
	desc, has := str(at, "description", true, "say what the elicitation asks the user for", rep)
	if has && strings.TrimSpace(desc) == "" {
		rep.errorf(place{at.src, root.Get("description")}, "say what the elicitation asks the user for", "the description is empty")
		ok = false
	}
	ok = ok && has
	e.description = desc
	e.message, _ = str(at, "message", false, "", rep)
	if n := root.Get("message"); n != nil && n.Kind != jsontree.String {
		ok = false
	}
	mode, has := str(at, "mode", true, `add "mode": "form" or "mode": "url"`, rep)
	e.mode = mode
	schema := root.Get("requestedSchema")
	switch {
	case !has:
		ok = false
	case mode == "form":
		if schema == nil {
			rep.errorf(at, `add "requestedSchema": {"type": "object", "properties": {...}}`, "a form elicitation needs a requestedSchema")
			ok = false
		} else if !checkFormSchema(place{at.src, schema}, rep) {
			ok = false
		}
		e.schema = schema
	case mode == "url":
		if schema != nil {
			rep.errorf(place{at.src, schema}, "the URL is given when the tool asks; remove requestedSchema or use form mode",
				"a URL-mode elicitation has no requestedSchema")
			ok = false
		}
	default:
		rep.errorf(place{at.src, root.Get("mode")}, `use "form" or "url"`, "unknown mode %q", mode)
		ok = false
	}
	if !ok {
		return nil
	}
	return e
}
