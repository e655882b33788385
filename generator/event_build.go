package generator

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"

	"github.com/mcpgen/mcpgen/generator/internal/jsontree"
)

// eventKind is the event types of the events extension: an events/list
// entry (it has a payloadSchema, which no tool has), an array of them, or
// an events/list result {"events": [...]}.
type eventKind struct {
	events []*eventDef
}

func (k *eventKind) claim(n *jsontree.Node, list string) claimStrength {
	switch {
	case list == "events":
		return shapeClaim
	case list != "" && list != "[]" || n.Kind != jsontree.Object:
		return noClaim
	case n.Has("payloadSchema"):
		return refinedClaim // a tool's shape (name, inputSchema) with the key only event types have
	}
	return noClaim
}

func (k *eventKind) lists() []listResult { return []listResult{{"events", "events/list"}} }
func (k *eventKind) fileKinds() []string { return []string{"event", "events"} }
func (k *eventKind) shapes() string {
	return `an event type {"name", "payloadSchema", ...} (or an array or events/list result of them)`
}

func (k *eventKind) load(at place, _ string, lc *loadContext) {
	if ev := loadEvent(at, lc.rep); ev != nil {
		k.events = append(k.events, ev)
	}
}

// finish keeps the first event type of each name, in input order.
func (k *eventKind) finish(lc *loadContext) {
	sort.SliceStable(k.events, func(i, j int) bool { return before(k.events[i].at, k.events[j].at) })
	seen := map[string]*eventDef{}
	var kept []*eventDef
	for _, ev := range k.events {
		if first, ok := seen[ev.name]; ok {
			lc.rep.errorf(place{ev.at.src, ev.at.node.Get("name")}, "event type names must be unique per server; rename one",
				"duplicate event type name %q, first defined at %s", ev.name, first.at)
			continue
		}
		seen[ev.name] = ev
		kept = append(kept, ev)
	}
	k.events = kept
}

// build names each event type and maps its schemas to Go types: the
// subscription's arguments (an input: what cannot be represented is an
// error) and the payload (what the server sends: a warning).
func (k *eventKind) build(bc *buildContext) part {
	p := &eventPart{}
	if len(k.events) > 0 {
		first := place{k.events[0].at.src, k.events[0].at.node.Get("name")}
		for _, id := range []string{"Events", "EventsOn"} {
			if !bc.ns.claim(id, first, "rename the type or function that takes it") {
				return p
			}
		}
		if !bc.claimFile("mcpgen_package_events.go", first, "") {
			return p
		}
	}
	for _, ev := range k.events {
		ir := &eventIR{name: ev.name, goName: goName(ev.name), description: ev.description, doc: docLinesOf(ev.description),
			source: path.Base(ev.at.src.path), delivery: ev.delivery, noReplay: ev.noReplay, retentionMs: ev.retention.Milliseconds(),
			scopes: ev.scopes, payload: stripOverrides(ev.at.src.doc, ev.payload), meta: eventMeta(ev.definition)}
		if ev.goName != "" {
			ir.goName = ev.goName
		}
		at := place{ev.at.src, ev.at.node.Get("name")}
		if ev.goNameAt != nil {
			at = place{ev.at.src, ev.goNameAt}
		}
		hint := fmt.Sprintf(`set _meta[%q] on the event type`, metaGoName)
		ir.file = "mcpgen_" + snake(ir.goName) + "_event.go"
		if !bc.claimFile(ir.file, at, hint) {
			continue
		}
		ok := true
		for _, id := range []string{ir.constName(), ir.inputName(), ir.payloadName(), ir.funcName(), ir.matcherName(), ir.watcherName()} {
			ok = bc.ns.claim(id, at, hint) && ok
		}
		if first, free := bc.claimMethod(ir.subscribeMethod(), at.String()); !free {
			bc.rep.errorf(at, hint, "Handler method %s of event type %q collides with the one made for %s", ir.subscribeMethod(), ev.name, first)
			ok = false
		}
		if !ok {
			continue
		}
		b := bc.typeBuilder(ev.at.src, ev.at.node.Ptr(), fmt.Sprintf("event type %q", ev.name), ir.goName, &ir.decls)
		if ev.input != nil {
			ir.input = stripOverrides(ev.at.src.doc, ev.input)
			b.root = ev.input
			b.roots[ev.input] = fmt.Sprintf("the arguments of a subscription to event type %s", ev.name)
			ir.args = b.rootType(ev.input, b.typeName(ev.input, ir.goName+"Args"))
			b.warnExtra()
		} else {
			ir.args = rawType
		}
		b.root = ev.payload
		b.memo = map[*jsontree.Node]*typeRef{}
		b.roots[ev.payload] = fmt.Sprintf("the payload of event type %s", ev.name)
		b.output = true
		ir.data = b.outputType(ev.payload, b.typeName(ev.payload, ir.goName))
		b.warnExtra()
		b.breakCycles(ir.decls, ev.input)
		if bc.testClient {
			what := fmt.Sprintf("event type %q", ev.name)
			bc.claimClientMethod("Poll"+ir.goName, at, hint, what)
			if ev.offers("webhook") {
				for _, m := range ir.webhookClientMethods() {
					bc.claimClientMethod(m, at, hint, what)
				}
			}
		}
		p.events = append(p.events, ir)
	}
	return p
}

// eventMeta is the _meta member of a descriptor, as advertised (mcpgen's
// keys already stripped); nil when it has none.
func eventMeta(def []byte) []byte {
	var d struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(def, &d) != nil || len(d.Meta) == 0 {
		return nil
	}
	return d.Meta
}
