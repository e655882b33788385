package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// The same handler, written as generated code would call the runtime, must
// give identical results to a legacy session (live round trips on the POST
// stream) and to a 2026-07-28 client (multi round-trip with replay).

var cityForm = &Elicitation{
	Name: "city", Mode: "form", Message: "Which city?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1},"nights":{"type":"integer","minimum":1,"default":2}},"required":["city"]}`),
}

type cityAnswer struct {
	City   string `json:"city"`
	Nights int    `json:"nights"`
}

type tripPlan struct {
	To     string `json:"to"`
	Nights int    `json:"nights"`
	From   string `json:"from"`
	Plan   string `json:"plan"`
}

// planTripTool elicits cityForm twice (keys city and city_2) and samples once.
func planTripTool() Tool {
	return Tool{
		Name: "plan_trip",
		Definition: json.RawMessage(`{"name":"plan_trip","description":"Plans a trip","inputSchema":{"type":"object","properties":{"budget":{"type":"integer"}}},
			"outputSchema":{"type":"object","properties":{"to":{"type":"string"},"nights":{"type":"integer"},"from":{"type":"string"},"plan":{"type":"string"}}}}`),
		Elicitations: []*Elicitation{cityForm},
		Handler: func(ctx context.Context, call *Call, args json.RawMessage) (*ToolResult, error) {
			var in struct {
				Budget int `json:"budget"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			var out, back cityAnswer
			if err := call.Elicit(ctx, cityForm, "Where do you fly to?", &out); err != nil {
				return nil, err
			}
			if err := call.Elicit(ctx, cityForm, "Where do you fly back from?", &back); err != nil {
				return nil, err
			}
			res, err := call.CreateMessage(ctx, UserText("Plan "+out.City+" to "+back.City, in.Budget))
			if err != nil {
				return nil, err
			}
			var text TextContent
			if err := json.Unmarshal(res.Content, &text); err != nil {
				return nil, err
			}
			call.AddContent(Text("have a good trip"))
			return StructuredResult(call, tripPlan{To: out.City, Nights: out.Nights, From: back.City, Plan: text.Text})
		},
	}
}

// tripAnswer is the user's (and the model's) side, the same in both eras.
func tripAnswer(t *testing.T, method string, params json.RawMessage) string {
	t.Helper()
	var p struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(params, &p)
	switch {
	case method == "elicitation/create" && p.Message == "Where do you fly to?":
		return `{"action":"accept","content":{"city":"Lisbon"}}`
	case method == "elicitation/create" && p.Message == "Where do you fly back from?":
		return `{"action":"accept","content":{"city":"Porto","nights":3}}`
	case method == "sampling/createMessage":
		return `{"role":"assistant","content":{"type":"text","text":"Take the train."},"model":"m"}`
	}
	t.Fatalf("unexpected question %s %s", method, params)
	return ""
}

// asked is one server-to-client question as the client saw it.
type asked struct {
	Method string `json:"method"`
	Params string `json:"params"` // canonical JSON
}

func TestMRTRLegacyParity(t *testing.T) {
	leakCheck(t)
	s := newTestServer(t, planTripTool())
	ts := httptest.NewServer(handlerOf(s))
	t.Cleanup(func() {
		_ = closeServer(s)
		ts.CloseClientConnections()
		ts.Close()
	})
	args := `{"budget":100}`

	legacyResult, legacyAsked := runLegacyTrip(t, ts, args)
	modernResult, modernAsked, rounds := runModernTrip(t, ts, args)

	if rounds != 4 {
		t.Errorf("modern rounds = %d, want 4 (one per question, then the result)", rounds)
	}
	if jsonOf(legacyAsked) != jsonOf(modernAsked) {
		t.Errorf("questions differ:\nlegacy %s\nmodern %s", jsonOf(legacyAsked), jsonOf(modernAsked))
	}
	if legacyResult != modernResult {
		t.Errorf("results differ:\nlegacy %s\nmodern %s", legacyResult, modernResult)
	}
	if !strings.Contains(modernResult, `"structuredContent":{"from":"Porto","nights":2,"plan":"Take the train.","to":"Lisbon"}`) {
		t.Errorf("result %s", modernResult)
	}
}

// closeServer closes s when the transport offers Close.
func closeServer(s *Server) error {
	if c, ok := any(s).(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// runLegacyTrip drives plan_trip in a 2025-11-25 session: every question
// arrives on the tools/call stream and is answered with its own POST.
func runLegacyTrip(t *testing.T, ts *httptest.Server, args string) (string, []asked) {
	t.Helper()
	c := newClient(t, ts)
	c.initialize(Version20251125, `{"elicitation":{},"sampling":{}}`)
	ch := events(t, c.post(callBody(1, "plan_trip", args)))
	var qs []asked
	for {
		ev := next(t, ch)
		if ev.msg.Method == "" {
			return canonical(t, ev.msg.Result, "resultType", "_meta"), qs
		}
		qs = append(qs, asked{ev.msg.Method, canonical(t, ev.msg.Params)})
		if st := c.answer(ev.msg.ID, tripAnswer(t, ev.msg.Method, ev.msg.Params)); st != http.StatusAccepted {
			t.Fatalf("answer: HTTP %d", st)
		}
	}
}

// runModernTrip drives plan_trip with 2026-07-28 retries until complete.
func runModernTrip(t *testing.T, ts *httptest.Server, args string) (string, []asked, int) {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &modernClient{t: t, url: ts.URL, hc: &http.Client{Transport: tr}, caps: map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}}}
	var argv map[string]any
	_ = json.Unmarshal([]byte(args), &argv)
	params := map[string]any{"name": "plan_trip", "arguments": argv}
	var qs []asked
	for round := 1; round <= 10; round++ {
		res := c.call("tools/call", params).result(t)
		if res["resultType"] == "complete" {
			b, _ := json.Marshal(res)
			return canonical(t, b, "resultType", "_meta"), qs, round
		}
		reqs := res["inputRequests"].(map[string]any)
		if want := []string{"city", "city_2", "sampling"}[min(round, 3)-1]; len(reqs) != 1 || reqs[want] == nil {
			t.Errorf("round %d asks %v, want key %s", round, reqs, want)
		}
		responses := map[string]any{}
		for _, k := range slices.Sorted(mapsKeys(reqs)) {
			q := reqs[k].(map[string]any)
			p, _ := json.Marshal(q["params"])
			qs = append(qs, asked{q["method"].(string), canonical(t, p)})
			responses[k] = json.RawMessage(tripAnswer(t, q["method"].(string), p))
		}
		params = map[string]any{"name": "plan_trip", "arguments": argv, "inputResponses": responses, "requestState": res["requestState"]}
	}
	t.Fatal("no complete result after 10 rounds")
	return "", nil, 0
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// canonical re-encodes a result with sorted keys, without the given keys.
func canonical(t *testing.T, raw json.RawMessage, drop ...string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	for _, k := range drop {
		delete(m, k)
	}
	return jsonOf(m)
}
