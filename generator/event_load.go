package generator

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// An event type (the events extension, SEP-3415) is written as the entry
// events/list shows: name, description, delivery, inputSchema (the
// subscription's arguments), payloadSchema (each event's data) and _meta,
// where mcpgen reads its own keys: scopes as on tools, whether the type
// keeps a log to replay from, and how long.
const (
	metaReplay    = metaPrefix + "replay"    // false: no log, cursors are null, no poll
	metaRetention = metaPrefix + "retention" // "10m": how long the log keeps an event
)

// eventNameRE is the events extension's rule for a type's name, as the
// engine checks it.
var eventNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$`)

// eventModes are the delivery modes an event type may offer.
var eventModes = []string{"poll", "push", "webhook"}

// eventDef is one event type as read from an input file.
type eventDef struct {
	at          place
	name        string
	description string
	goName      string
	goNameAt    *jsontree.Node
	input       *jsontree.Node // inputSchema, or nil: any object
	payload     *jsontree.Node // payloadSchema
	delivery    []string       // as written; nil: every mode the type can offer
	noReplay    bool
	retention   time.Duration
	scopes      []string
	definition  []byte // the entry as written, minus mcpgen's _meta keys
}

func loadEvent(at place, rep *reporter) *eventDef {
	if at.node.Kind != jsontree.Object {
		rep.errorf(at, "each event type is a JSON object", "expected an event type object, found a %s", at.node.Kind)
		return nil
	}
	ev := &eventDef{at: at}
	ok := true
	name, has := str(at, "name", true, "every event type needs a name", rep)
	switch {
	case !has:
		ok = false
	case !eventNameRE.MatchString(name):
		rep.errorf(place{at.src, at.node.Get("name")}, "use 1 to 128 characters from A-Z a-z 0-9 . _ / -, starting with a letter or digit",
			"event type name %q is outside the extension's character rules", name)
		ok = false
	}
	ev.name = name
	ev.description, _ = str(at, "description", false, "", rep)
	if n := at.node.Get("description"); n != nil && n.Kind != jsontree.String {
		ok = false
	}
	if ev.input = at.node.Get("inputSchema"); ev.input != nil && !checkToolSchema(place{at.src, ev.input}, "inputSchema", rep) {
		ok = false
	}
	switch ev.payload = at.node.Get("payloadSchema"); {
	case ev.payload == nil:
		rep.errorf(at, `add "payloadSchema": the JSON Schema of each event's data`, "event type %q has no payloadSchema", name)
		ok = false
	case ev.payload.Kind != jsontree.Object:
		rep.errorf(place{at.src, ev.payload}, `write {"type": "object", "properties": {...}}`, "payloadSchema must be a JSON object, not a %s", ev.payload.Kind)
		ok = false
	case !compileSchema(place{at.src, ev.payload}, rep) || !checkSatisfiable(place{at.src, ev.payload}, true, rep):
		ok = false
	}
	ok = loadDelivery(at, ev, rep) && ok
	if meta := at.node.Get("_meta"); meta != nil {
		ok = loadEventMeta(at, meta, ev, rep) && ok
	}
	if ok && ev.noReplay && ev.offers("poll") && ev.delivery != nil {
		rep.errorf(place{at.src, at.node.Get("delivery")}, `remove "poll", or keep the log (drop "`+metaReplay+`": false)`,
			"event type %q offers poll delivery without replay: a poll resumes from a cursor, which needs the log", name)
		ok = false
	}
	if !ok {
		return nil
	}
	ev.definition = stripMeta(at.src.doc, at.node)
	return ev
}

// loadDelivery reads "delivery": the modes the type offers, each once.
func loadDelivery(at place, ev *eventDef, rep *reporter) bool {
	d := at.node.Get("delivery")
	if d == nil {
		return true
	}
	if d.Kind != jsontree.Array || len(d.Elems) == 0 {
		rep.errorf(place{at.src, d}, `write ["poll", "push", "webhook"], or leave "delivery" out for every mode`, "delivery must be a non-empty array of modes")
		return false
	}
	ok := true
	seen := map[string]bool{}
	for _, el := range d.Elems {
		switch {
		case el.Kind != jsontree.String || !slices.Contains(eventModes, el.Str):
			rep.errorf(place{at.src, el}, "the modes are poll, push and webhook", "unknown delivery mode %s", compactJSON(at.src.doc, el))
			ok = false
		case seen[el.Str]:
			rep.errorf(place{at.src, el}, "list each mode once", "delivery mode %q is listed twice", el.Str)
			ok = false
		default:
			seen[el.Str] = true
			ev.delivery = append(ev.delivery, el.Str)
		}
	}
	return ok
}

// loadEventMeta reads mcpgen's keys of an event type's _meta.
func loadEventMeta(at place, meta *jsontree.Node, ev *eventDef, rep *reporter) bool {
	if meta.Kind != jsontree.Object {
		rep.errorf(place{at.src, meta}, "", "\"_meta\" must be an object")
		return false
	}
	ok := true
	for _, mem := range meta.Members {
		v := mem.Value
		switch mem.Key {
		case metaScopes:
			ok = loadScopes(at, v, &ev.scopes, rep) && ok
		case metaGoName:
			if v.Kind != jsontree.String || !isExportedIdent(v.Str) {
				rep.errorf(place{at.src, v}, "use an exported Go identifier such as \"NoteAdded\"", "%q must be an exported Go identifier", metaGoName)
				ok = false
				continue
			}
			ev.goName, ev.goNameAt = v.Str, v
		case metaReplay:
			if v.Kind != jsontree.Bool {
				rep.errorf(place{at.src, v}, "write true or false", "%q must be a boolean", metaReplay)
				ok = false
				continue
			}
			ev.noReplay = !v.Bool
		case metaRetention:
			d, err := time.ParseDuration(v.Str)
			if v.Kind != jsontree.String || err != nil || d < time.Second {
				rep.errorf(place{at.src, v}, `write a Go duration of at least a second, such as "10m" or "24h"`, "%q must be a duration", metaRetention)
				ok = false
				continue
			}
			ev.retention = d
		default:
			if strings.HasPrefix(mem.Key, metaPrefix) {
				rep.errorf(place{at.src, v}, "mcpgen knows "+metaScopes+", "+metaGoName+", "+metaReplay+" and "+metaRetention+" on an event type",
					"unknown mcpgen key %q", mem.Key)
				ok = false
			}
		}
	}
	return ok
}

// offers reports whether the type offers mode (every mode when delivery is
// not written; poll only with replay).
func (ev *eventDef) offers(mode string) bool {
	if ev.delivery == nil {
		return mode != "poll" || !ev.noReplay
	}
	return slices.Contains(ev.delivery, mode)
}
