package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The examples of SEP-3415 (as of PR #3415, commit 5eb6862), each decoded
// into the wire type it illustrates and encoded again: what comes back must
// be the example, member for member (less resultType, which the runtime's
// framing adds). The SEP writes them as JSONC; here they are plain JSON with
// the same members and values.
var specExamples = []struct {
	name string
	into func() any
	json string
}{
	{"events/list result", func() any { return new(ListResult) }, `{
		"events": [
			{"name": "email.received", "description": "Fires when a new email arrives in the inbox", "delivery": ["poll"],
			 "inputSchema": {"type": "object", "properties": {
				"from": {"type": "string", "description": "Glob pattern for sender address"},
				"subject_contains": {"type": "string"},
				"redact_pii": {"type": "boolean", "default": false, "description": "Strip PII from event payloads"},
				"include_body_preview": {"type": "boolean", "default": true, "description": "Include a snippet of the email body"}}},
			 "payloadSchema": {"type": "object", "properties": {
				"messageId": {"type": "string"}, "from": {"type": "string"}, "subject": {"type": "string"},
				"receivedAt": {"type": "string", "format": "date-time"}}}},
			{"name": "incident.created", "description": "Fires when a new PagerDuty incident is created", "delivery": ["webhook", "push", "poll"],
			 "inputSchema": {"type": "object", "properties": {
				"severity": {"type": "string", "enum": ["P1", "P2", "P3", "P4"]}, "service": {"type": "string"},
				"deduplicate_window_seconds": {"type": "integer", "default": 0, "description": "Suppress duplicate alerts within this window"}}},
			 "payloadSchema": {"...": "..."}, "_meta": {"...": "..."}}
		],
		"nextCursor": "..."}`},
	{"events/poll params", func() any { return new(PollParams) }, `{
		"name": "email.received", "arguments": {"from": "*@anthropic.com", "redact_pii": true},
		"maxAgeMs": 300000, "maxEvents": 50}`},
	{"events/poll result", func() any { return new(PollResult) }, `{
		"events": [{"eventId": "evt_001", "name": "email.received", "timestamp": "2026-02-19T15:30:00Z",
			"data": {"messageId": "msg_xyz", "from": "dsp@anthropic.com", "subject": "MCP spec review", "receivedAt": "2026-02-19T15:29:58Z"}}],
		"cursor": "historyId_99842", "truncated": false, "hasMore": false, "nextPollMs": 30000}`},
	{"events/stream params", func() any { return new(StreamParams) }, `{
		"name": "email.received", "arguments": {"from": "*@anthropic.com", "redact_pii": true}, "maxAgeMs": 300000}`},
	{"notifications/events/active", func() any { return new(ActiveParams) },
		`{"cursor":"historyId_99840","truncated":false,"_meta":{"io.modelcontextprotocol/subscriptionId":1}}`},
	{"notifications/events/event", func() any { return new(EventParams) },
		`{"eventId":"evt_001","name":"email.received","timestamp":"2026-02-19T15:30:00Z","data":{"messageId":"msg_xyz","from":"dsp@anthropic.com","subject":"MCP spec review"},"cursor":"historyId_99842","_meta":{"io.modelcontextprotocol/subscriptionId":1}}`},
	{"notifications/events/error", func() any { return new(ErrorParams) },
		`{"error":{"code":-32603,"message":"UpstreamError","data":{"reason":"Gmail API 503"}},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}`},
	{"notifications/events/heartbeat", func() any { return new(HeartbeatParams) },
		`{"cursor":"historyId_99850","_meta":{"io.modelcontextprotocol/subscriptionId":1}}`},
	{"notifications/events/terminated", func() any { return new(ErrorParams) },
		`{"error":{"code":-32024,"message":"Forbidden","data":{"reason":"Access revoked"}},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}`},
	{"StreamEventsResult", func() any { return new(StreamResult) },
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}`},
	{"events/subscribe params", func() any { return new(SubscribeParams) }, `{
		"name": "incident.created", "arguments": {"severity": "P1"},
		"delivery": {"mode": "webhook", "url": "https://proxy.example.com/hooks/client123", "secret": "whsec_<base64-of-24-to-64-random-bytes>"},
		"maxAgeMs": 300000, "ttlMs": 3600000}`},
	{"events/subscribe params, no expiry", func() any { return new(SubscribeParams) }, `{
		"name": "incident.created", "delivery": {"url": "https://proxy.example.com/hooks/client123", "secret": "whsec_x"}, "ttlMs": null}`},
	{"events/subscribe result", func() any { return new(SubscribeResult) }, `{
		"id": "sub_a3f1c8e2b0d49f7e", "refreshBefore": "2026-02-19T16:30:00Z", "cursor": "cursor_start_001", "truncated": false}`},
	{"events/subscribe result, healthy refresh", func() any { return new(SubscribeResult) }, `{
		"id": "sub_a3f1c8e2b0d49f7e", "refreshBefore": "2026-02-19T17:00:00Z", "cursor": "cursor_xyz", "truncated": false,
		"deliveryStatus": {"active": true, "lastDeliveryAt": "2026-02-19T16:28:00Z", "lastError": null}}`},
	{"events/subscribe result, failing", func() any { return new(SubscribeResult) }, `{
		"id": "sub_a3f1c8e2b0d49f7e", "refreshBefore": "2026-02-19T17:00:00Z", "cursor": "cursor_xyz", "truncated": false,
		"deliveryStatus": {"active": false, "lastDeliveryAt": "2026-02-19T15:45:00Z", "lastError": "http_4xx", "failedSince": "2026-02-19T15:50:00Z"}}`},
	{"events/subscribe result, throttled", func() any { return new(SubscribeResult) }, `{
		"id": "sub_a3f1c8e2b0d49f7e", "refreshBefore": "2026-02-19T17:00:00Z", "cursor": "cursor_xyz", "truncated": false,
		"deliveryStatus": {"active": true, "lastDeliveryAt": "2026-02-19T16:28:00Z", "lastError": null, "throttled": true, "retryAfterMs": 60000}}`},
	{"events/unsubscribe params", func() any { return new(UnsubscribeParams) }, `{
		"name": "incident.created", "arguments": {"severity": "P1"}, "delivery": {"url": "https://proxy.example.com/hooks/client123"}}`},
	{"webhook event body", func() any { return new(Occurrence) }, `{
		"eventId": "evt_789", "name": "incident.created", "timestamp": "2026-02-19T16:00:00Z",
		"data": {"incidentId": "INC-1234", "title": "Database connection pool exhausted", "severity": "P1"}, "cursor": "cursor_xyz"}`},
	{"gap envelope", func() any { return new(GapEnvelope) }, `{"type":"gap","cursor":"<fresh>"}`},
	{"terminated envelope", func() any { return new(TerminatedEnvelope) },
		`{"type":"terminated","error":{"code":-32024,"message":"Forbidden","data":{"reason":"Access revoked"}}}`},
	{"verification envelope", func() any { return new(VerificationEnvelope) }, `{"type":"verification","challenge":"<nonce>"}`},
}

func TestSpecExamplesRoundTrip(t *testing.T) {
	for _, ex := range specExamples {
		t.Run(ex.name, func(t *testing.T) {
			v := ex.into()
			d := json.NewDecoder(strings.NewReader(ex.json))
			d.DisallowUnknownFields()
			if err := d.Decode(v); err != nil {
				t.Fatalf("decoding the example: %v", err)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			json.Unmarshal([]byte(ex.json), &want)
			json.Unmarshal(out, &got)
			if !reflect.DeepEqual(want, got) {
				t.Errorf("encoded again it differs:\n got %s\nwant %s", out, ex.json)
			}
		})
	}
}

// The results of 2026-07-28 carry resultType; a client decoding them (the
// test client, say) must accept it.
func TestResultTypeIsAccepted(t *testing.T) {
	var r PollResult
	if err := json.Unmarshal([]byte(`{"resultType":"complete","events":[],"cursor":null,"truncated":false,"hasMore":false,"nextPollMs":5000}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Cursor != nil || r.NextPollMs != 5000 {
		t.Errorf("decoded %+v", r)
	}
}

func TestTTLHasThreeStates(t *testing.T) {
	for _, c := range []struct {
		in   string
		want TTL
	}{
		{`{}`, TTL{}},
		{`{"ttlMs":null}`, TTL{Set: true, Null: true}},
		{`{"ttlMs":60000}`, TTL{Set: true, Ms: 60000}},
	} {
		var p SubscribeParams
		if err := json.Unmarshal([]byte(c.in), &p); err != nil {
			t.Fatal(err)
		}
		if p.TTLMs != c.want {
			t.Errorf("%s: got %+v, want %+v", c.in, p.TTLMs, c.want)
		}
	}
	var p SubscribeParams
	if err := json.Unmarshal([]byte(`{"ttlMs":"soon"}`), &p); err == nil || !strings.Contains(err.Error(), "ttlMs") {
		t.Errorf("a string ttlMs: %v", err)
	}
}

// Absent and null cursors are the same thing everywhere (SEP-3415, "Absent
// means null"), and a poll result always writes its cursor.
func TestAbsentCursorIsNull(t *testing.T) {
	var a, b PollParams
	json.Unmarshal([]byte(`{"name":"x"}`), &a)
	json.Unmarshal([]byte(`{"name":"x","cursor":null}`), &b)
	if a.Cursor != nil || b.Cursor != nil {
		t.Errorf("cursors %v %v", a.Cursor, b.Cursor)
	}
	out, _ := json.Marshal(PollResult{Events: []Occurrence{}})
	if !strings.Contains(string(out), `"cursor":null`) {
		t.Errorf("a poll result without a cursor: %s", out)
	}
}

func TestErrorCodesOfBothDocuments(t *testing.T) {
	if !SEP3415Codes.valid() || !DesignSketchCodes.valid() {
		t.Fatal("a built-in numbering is invalid")
	}
	if SEP3415Codes.Forbidden != -32024 || DesignSketchCodes.Forbidden != -32012 {
		t.Errorf("Forbidden is %d / %d", SEP3415Codes.Forbidden, DesignSketchCodes.Forbidden)
	}
	if (Codes{NotFound: -32011, Forbidden: -32011, ResourceExhausted: -32013, Unsupported: -32014, CallbackEndpointError: -32015}).valid() {
		t.Error("a numbering with a code twice is valid")
	}
}
