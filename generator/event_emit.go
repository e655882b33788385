package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

func (p *eventPart) emit(pc *packageCode) {
	if len(p.events) == 0 {
		return
	}
	pc.importName(eventsPkg, "events")
	pc.files = append(pc.files, genFile{"mcpgen_package_events.go", func() *jen.File { return emitEvents(pc) }})
	for _, ev := range p.events {
		pc.files = append(pc.files, genFile{ev.file, func() *jen.File { return emitEvent(pc, ev) }})
		sub := jen.Op("*").Qual(eventsPkg, "Subscription")
		pc.methods = append(pc.methods, handlerMethod{name: ev.subscribeMethod(),
			doc: []string{
				fmt.Sprintf("%s decides on a new subscription to event type %s (a push stream, a webhook, the first poll "+
					"of a caller's arguments) before it is accepted: return args to accept it as asked, other arguments "+
					"to narrow what it receives, or events.Refuse(reason) to refuse it with a reason the client sees.", ev.subscribeMethod(), ev.name),
				"",
				fmt.Sprintf("The bounds are checked before it runs, and args match the type's inputSchema. "+
					"Implement %s to filter each event per subscription, and %s to start and stop watching the upstream "+
					"system while the type has subscribers.", ev.matcherName(), ev.watcherName()),
			},
			params: []jen.Code{ctx(), jen.Id("sub").Add(sub.Clone()), jen.Id("args").Add(typeExpr(ev.args))},
			anon:   []jen.Code{jen.Id("_").Qual("context", "Context"), jen.Id("_").Add(sub.Clone()), jen.Id("args").Add(typeExpr(ev.args))},
			result: []jen.Code{typeExpr(ev.args), jen.Error()}, what: fmt.Sprintf("event type %s", ev.name),
			zero: jen.Id("args"), notImplemented: jen.Nil(),
			byDefault: fmt.Sprintf("%s accepts every subscription to event type %s as asked.", ev.subscribeMethod(), ev.name)})
		if pc.importPath != "" {
			pc.calls = append(pc.calls, func(f *jen.File) { emitTestEvent(f, pc.importPath, ev) })
		}
	}
	pc.handlerDoc = append(pc.handlerDoc, "each event type's subscriptions")
	pc.steps = append(pc.steps, registerStep{key: eventsPkg, doc: "serves its event types through the events extension (io.modelcontextprotocol/events)",
		code: jen.Comment("// Serve the event types (an events.Enable before Register chooses the engine and its Options).").Line().
			If(jen.Err().Op(":=").Qual(eventsPkg, "Register").CallFunc(func(g *jen.Group) {
				g.Line().Id("s")
				for _, ev := range p.events {
					g.Line().Id(ev.funcName()).Call(jen.Id("h"))
				}
				g.Line()
			}), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))})
}

// emitEvents writes mcpgen_package_events.go: the emitter of the package's event
// types.
func emitEvents(pc *packageCode) *jen.File {
	f := pc.newFile()
	f.Add(comment("Events emits the event types of this package on the engine that serves them: each Emit method "+
		"validates its payload against the type's payloadSchema before anything is delivered, then delivers it to "+
		"every subscription it reaches (poll, push and webhook, on every replica that shares the engine's Store).",
		"", "Get it with EventsOn once Register has run."))
	f.Type().Id("Events").Struct(jen.Id("Engine").Op("*").Qual(eventsPkg, "Engine"))
	f.Add(comment("EventsOn returns the emitter of this package's event types on s, on which Register served them."))
	f.Func().Id("EventsOn").Params(jen.Id("s").Op("*").Qual(runtimePkg, "Server")).Params(jen.Id("Events"), jen.Error()).Block(
		jen.List(jen.Id("e"), jen.Id("ok")).Op(":=").Qual(eventsPkg, "Served").Call(jen.Id("s")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Id("Events").Values(),
			jen.Qual("errors", "New").Call(jen.Lit(pc.pkg+": the server serves no events: call Register first")))),
		jen.Return(jen.Id("Events").Values(jen.Id("Engine").Op(":").Id("e")), jen.Nil()),
	)
	return f
}

// modeConst is the ext/events constant of a delivery mode.
func modeConst(mode string) jen.Code {
	return jen.Qual(eventsPkg, "Mode"+strings.ToUpper(mode[:1])+mode[1:])
}

func emitEvent(pc *packageCode, ev *eventIR) *jen.File {
	f := pc.newFile()
	f.Add(comment(fmt.Sprintf("%s is the name of event type %s: what events/poll, events/stream and events/subscribe name.", ev.constName(), ev.name)))
	f.Const().Id(ev.constName()).Op("=").Lit(ev.name)
	if ev.input != nil {
		f.Add(comment(fmt.Sprintf("%s is the inputSchema of event type %s, as written in %s.", ev.inputName(), ev.name, ev.source)))
		f.Const().Id(ev.inputName()).Op("=").Add(jsonText(string(ev.input)))
	}
	f.Add(comment(fmt.Sprintf("%s is the payloadSchema of event type %s, as written in %s: every payload is validated against it.", ev.payloadName(), ev.name, ev.source)))
	f.Const().Id(ev.payloadName()).Op("=").Add(jsonText(string(ev.payload)))
	for _, d := range ev.decls {
		emitDecl(f, d)
	}
	args, data := typeExpr(ev.args), typeExpr(ev.data)
	sub := jen.Op("*").Qual(eventsPkg, "Subscription")

	f.Add(comment(fmt.Sprintf("%s is implemented by a Handler that filters event type %s per subscription: "+
		"Match%s reports whether a broadcast event reaches sub, whose args are those Subscribe%s accepted. "+
		"It runs for every subscription and event, live, on replay and on poll, so keep it quick.", ev.matcherName(), ev.name, ev.goName, ev.goName)))
	f.Type().Id(ev.matcherName()).Interface(
		jen.Id("Match"+ev.goName).Params(jen.Id("sub").Add(sub.Clone()), jen.Id("args").Add(args.Clone()), jen.Id("ev").Add(data.Clone())).Bool(),
	)
	f.Add(comment(fmt.Sprintf("%s is implemented by a Handler that watches the upstream system of event type %s: "+
		"Watch%s starts when the type's first subscription appears (on one replica at a time, with a shared Store) and "+
		"its ctx ends when the last one is gone; it emits what happens with Events.%s.", ev.watcherName(), ev.name, ev.goName, ev.emitMethod())))
	f.Type().Id(ev.watcherName()).Interface(jen.Id("Watch" + ev.goName).Params(ctx()).Error())

	f.Add(comment(fmt.Sprintf("%s is event type %s as the engine serves it, its hooks answered by h.", ev.funcName(), ev.name)))
	f.Func().Id(ev.funcName()).Params(jen.Id("h").Id("Handler")).Qual(eventsPkg, "EventType").Block(
		jen.Id("t").Op(":=").Qual(eventsPkg, "EventType").ValuesFunc(func(g *jen.Group) {
			g.Line().Id("Name").Op(":").Id(ev.constName())
			if ev.description != "" {
				g.Line().Id("Description").Op(":").Lit(ev.description)
			}
			if ev.input != nil {
				g.Line().Id("InputSchema").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Id(ev.inputName()))
			}
			g.Line().Id("PayloadSchema").Op(":").Qual(jsonPkg, "RawMessage").Call(jen.Id(ev.payloadName()))
			if ev.delivery != nil {
				g.Line().Id("Delivery").Op(":").Index().Qual(eventsPkg, "Mode").ValuesFunc(func(mg *jen.Group) {
					for _, m := range ev.delivery {
						mg.Add(modeConst(m))
					}
				})
			}
			if ev.noReplay {
				g.Line().Id("NoReplay").Op(":").True()
			}
			if ev.retentionMs > 0 {
				g.Line().Id("Retention").Op(":").Lit(int(ev.retentionMs)).Op("*").Qual("time", "Millisecond")
			}
			if len(ev.scopes) > 0 {
				g.Line().Id("Scopes").Op(":").Index().String().ValuesFunc(func(sg *jen.Group) {
					for _, sc := range ev.scopes {
						sg.Lit(sc)
					}
				})
			}
			if ev.meta != nil {
				g.Line().Id("Meta").Op(":").Qual(jsonPkg, "RawMessage").Call(jsonText(string(ev.meta)))
			}
			g.Line()
		}),
		jen.Id("t").Dot("Hooks").Dot("Subscribe").Op("=").Func().Params(ctx(), jen.Id("sub").Add(sub.Clone())).
			Params(jen.Qual(jsonPkg, "RawMessage"), jen.Error()).Block(
			jen.Var().Id("args").Add(args.Clone()),
			jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("sub").Dot("Arguments"), jen.Op("&").Id("args")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual(eventsPkg, "Refuse").Call(jen.Lit("the arguments do not fit event type %s: %v"), jen.Id(ev.constName()), jen.Err())),
			),
			jen.List(jen.Id("narrowed"), jen.Err()).Op(":=").Id("h").Dot(ev.subscribeMethod()).Call(jen.Id("ctx"), jen.Id("sub"), jen.Id("args")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Id("narrowed"))),
		),
		jen.If(jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("h").Assert(jen.Id(ev.matcherName())), jen.Id("ok")).Block(
			jen.Id("t").Dot("Hooks").Dot("Match").Op("=").Func().Params(jen.Id("_").Qual("context", "Context"), jen.Id("sub").Add(sub.Clone()),
				jen.Id("ev").Op("*").Qual(eventsPkg, "Event")).Bool().Block(
				jen.Var().Id("args").Add(args.Clone()),
				jen.Var().Id("data").Add(data.Clone()),
				jen.If(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("sub").Dot("Effective"), jen.Op("&").Id("args")).Op("!=").Nil().Op("||").
					Qual(jsonPkg, "Unmarshal").Call(jen.Id("ev").Dot("Data"), jen.Op("&").Id("data")).Op("!=").Nil()).Block(jen.Return(jen.False())),
				jen.Return(jen.Id("m").Dot("Match"+ev.goName).Call(jen.Id("sub"), jen.Id("args"), jen.Id("data"))),
			),
		),
		jen.If(jen.List(jen.Id("w"), jen.Id("ok")).Op(":=").Id("h").Assert(jen.Id(ev.watcherName())), jen.Id("ok")).Block(
			jen.Id("t").Dot("Hooks").Dot("Watch").Op("=").Id("w").Dot("Watch"+ev.goName),
		),
		jen.Return(jen.Id("t")),
	)

	f.Add(comment(fmt.Sprintf("%s emits one event of type %s to to (events.Broadcast(): every subscription its Match admits; "+
		"events.To(id): one subscription). eventID is the upstream's stable identifier, so that an event emitted twice "+
		"within the type's retention is delivered once; \"\" lets the engine pick one. A payload that does not match "+
		"the payloadSchema is refused (events.ErrInvalidPayload) and nothing is delivered.", ev.emitMethod(), ev.name)))
	f.Func().Params(jen.Id("x").Id("Events")).Id(ev.emitMethod()).Params(ctx(), jen.Id("to").Qual(eventsPkg, "Target"), jen.Id("eventID").String(),
		jen.Id("ev").Add(data.Clone())).Params(jen.Qual(eventsPkg, "Emitted"), jen.Error()).Block(
		jen.If(jen.Id("x").Dot("Engine").Op("==").Nil()).Block(
			jen.Return(jen.Qual(eventsPkg, "Emitted").Values(), jen.Qual("errors", "New").Call(jen.Lit(pc.pkg+": Events has no engine: get it with EventsOn"))),
		),
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("ev")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(eventsPkg, "Emitted").Values(), jen.Err())),
		jen.Return(jen.Id("x").Dot("Engine").Dot("Emit").Call(jen.Id("ctx"), jen.Id(ev.constName()), jen.Id("to"),
			jen.Qual(eventsPkg, "Event").Values(jen.Id("ID").Op(":").Id("eventID"), jen.Id("Data").Op(":").Id("data")))),
	)
	return f
}

// emitTestEvent writes the test client's typed poll of an event type.
func emitTestEvent(f *jen.File, importPath string, ev *eventIR) {
	id := jen.Id
	data := qualifiedType(ev.data, importPath)
	occ := ev.goName + "Occurrence"
	f.Add(comment(fmt.Sprintf("%s is one event of type %s as a poll returns it.", occ, ev.name)))
	f.Type().Id(occ).Struct(
		id("EventID").String().Tag(map[string]string{"json": "eventId"}),
		id("Timestamp").String().Tag(map[string]string{"json": "timestamp"}),
		id("Data").Add(data).Tag(map[string]string{"json": "data"}),
	)
	f.Add(comment(fmt.Sprintf("Poll%s polls event type %s with args from cursor (nil: from now) and returns its events, "+
		"the cursor to poll from next, and whether events were skipped (truncated) or more are ready (hasMore).", ev.goName, ev.name)))
	f.Func().Params(id("c").Op("*").Id("Client")).Id("Poll"+ev.goName).Params(ctx(), id("args").Add(qualifiedType(ev.args, importPath)), id("cursor").Op("*").String()).
		Params(jen.Index().Id(occ), jen.Op("*").String(), jen.Bool(), jen.Bool(), jen.Error()).Block(
		id("raw").Op(",").Err().Op(":=").Id("c").Dot("Client").Dot("Request").Call(id("ctx"), jen.Lit("events/poll"), jen.Map(jen.String()).Any().Values(jen.DictFunc(func(d jen.Dict) {
			d[jen.Lit("name")] = jen.Qual(importPath, ev.constName())
			d[jen.Lit("arguments")] = id("args")
			d[jen.Lit("cursor")] = id("cursor")
		}))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Nil(), jen.False(), jen.False(), jen.Err())),
		jen.Var().Id("res").Struct(
			id("Events").Index().Id(occ).Tag(map[string]string{"json": "events"}),
			id("Cursor").Op("*").String().Tag(map[string]string{"json": "cursor"}),
			id("Truncated").Bool().Tag(map[string]string{"json": "truncated"}),
			id("HasMore").Bool().Tag(map[string]string{"json": "hasMore"}),
		),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(id("raw"), jen.Op("&").Id("res")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Nil(), jen.False(), jen.False(), jen.Err())),
		jen.Return(id("res").Dot("Events"), id("res").Dot("Cursor"), id("res").Dot("Truncated"), id("res").Dot("HasMore"), jen.Nil()),
	)
	if ev.offers("webhook") {
		emitTestWebhook(f, importPath, ev)
	}
}

// eventstestPkg is the webhook receiver for tests.
const eventstestPkg = eventsPkg + "/eventstest"

// emitTestWebhook writes the test client's typed webhook subscription of
// an event type: subscribe, unsubscribe, and the typed read of what an
// eventstest.Receiver got.
func emitTestWebhook(f *jen.File, importPath string, ev *eventIR) {
	id := jen.Id
	args := qualifiedType(ev.args, importPath)
	data := qualifiedType(ev.data, importPath)
	sub, unsub, recv := ev.webhookClientMethods()[0], ev.webhookClientMethods()[1], ev.webhookClientMethods()[2]
	params := func(secret jen.Code) jen.Code {
		return jen.Map(jen.String()).Any().Values(jen.DictFunc(func(d jen.Dict) {
			d[jen.Lit("name")] = jen.Qual(importPath, ev.constName())
			d[jen.Lit("arguments")] = id("args")
			d[jen.Lit("delivery")] = jen.Qual(eventsPkg, "Delivery").Values(jen.DictFunc(func(d jen.Dict) {
				d[id("Mode")] = jen.Qual(eventsPkg, "ModeWebhook")
				d[id("URL")] = id("url")
				if secret != nil {
					d[id("Secret")] = secret
				}
			}))
		}))
	}
	f.Add(comment(fmt.Sprintf("%s subscribes the webhook endpoint url, which verifies with the whsec_ secret, to event type %s "+
		"with args (events/subscribe; again with the same args and url: a refresh, with a rotated secret). The server verifies the "+
		"endpoint before it answers. In a test, an eventstest.Receiver is such an endpoint (its URL and Secret), and %s reads "+
		"what it receives. Webhook subscriptions need an authenticated principal (the server's Auth), and a callback on "+
		"loopback needs events.WebhookOptions.AllowLoopbackCallbacks.", sub, ev.name, recv)))
	f.Func().Params(id("c").Op("*").Id("Client")).Id(sub).Params(ctx(), id("args").Add(args.Clone()), id("url"), id("secret").String()).
		Params(jen.Qual(eventsPkg, "SubscribeResult"), jen.Error()).Block(
		id("raw").Op(",").Err().Op(":=").Id("c").Dot("Client").Dot("Request").Call(id("ctx"), jen.Lit("events/subscribe"), params(id("secret"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(eventsPkg, "SubscribeResult").Values(), jen.Err())),
		jen.Var().Id("res").Qual(eventsPkg, "SubscribeResult"),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(id("raw"), jen.Op("&").Id("res")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual(eventsPkg, "SubscribeResult").Values(), jen.Err())),
		jen.Return(id("res"), jen.Nil()),
	)
	f.Add(comment(fmt.Sprintf("%s ends the webhook subscription of url to event type %s with args (events/unsubscribe).", unsub, ev.name)))
	f.Func().Params(id("c").Op("*").Id("Client")).Id(unsub).Params(ctx(), id("args").Add(args.Clone()), id("url").String()).Error().Block(
		jen.List(id("_"), jen.Err()).Op(":=").Id("c").Dot("Client").Dot("Request").Call(id("ctx"), jen.Lit("events/unsubscribe"), params(nil)),
		jen.Return(jen.Err()),
	)
	f.Add(comment(fmt.Sprintf("%s returns the next event rc received (its signature verified, a retry handed out once), "+
		"skipping gap and terminated envelopes, with its payload decoded; an event of another type is an error. It waits "+
		"until ctx ends.", recv)))
	f.Func().Params(id("c").Op("*").Id("Client")).Id(recv).Params(ctx(), id("rc").Op("*").Qual(eventstestPkg, "Receiver")).
		Params(data.Clone(), jen.Qual(eventstestPkg, "Delivery"), jen.Error()).Block(
		jen.List(id("ev"), id("d"), jen.Err()).Op(":=").Qual(eventstestPkg, "NextEvent").Index(data.Clone()).Call(id("ctx"), id("rc")),
		jen.If(jen.Err().Op("==").Nil().Op("&&").Id("d").Dot("Event").Dot("Name").Op("!=").Qual(importPath, ev.constName())).Block(
			jen.Var().Id("zero").Add(data.Clone()),
			jen.Return(id("zero"), id("d"), jen.Qual("fmt", "Errorf").Call(jen.Lit("received an event of type %q, want %q"),
				id("d").Dot("Event").Dot("Name"), jen.Qual(importPath, ev.constName()))),
		),
		jen.Return(id("ev"), id("d"), jen.Err()),
	)
}
