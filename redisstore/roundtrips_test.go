package redisstore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// What each operation of a legacy session costs Redis, counted by Redis
// itself on a private server whose only clients are one replica and this
// meter: commands from INFO commandstats (a script's own calls included),
// round trips from total_reads_processed (a pipeline or a transaction sent
// at once is one read). Left out: the pub/sub connection's health-check
// PING, the HELLO of a connection the client's pool dials as it grows, and
// the meter's own INFO.

// redisCounts is a snapshot of a Redis server's counters.
type redisCounts struct {
	reads int64            // total_reads_processed
	cmds  map[string]int64 // calls per command
}

// opCost is what one operation cost Redis.
type opCost struct {
	roundTrips, commands int64
	byCommand            map[string]int64
}

func (c opCost) String() string {
	names := make([]string, 0, len(c.byCommand))
	for n := range c.byCommand {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%d %s", c.byCommand[n], strings.ToUpper(n)))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// per divides a cost measured over n repetitions.
func (c opCost) per(n int) (roundTrips, commands float64) {
	return float64(c.roundTrips) / float64(n), float64(c.commands) / float64(n)
}

// meter reads the counters of a Redis server only it and the measured
// replicas use.
type meter struct {
	t   testing.TB
	rdb redis.UniversalClient
}

func newMeter(t testing.TB, addr string) *meter {
	return &meter{t: t, rdb: newClient(t, addr)}
}

func (m *meter) read(ctx context.Context) redisCounts {
	m.t.Helper()
	info, err := m.rdb.Info(ctx, "commandstats", "stats").Result()
	if err != nil {
		m.t.Fatalf("reading Redis counters: %v", err)
	}
	c := redisCounts{cmds: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "total_reads_processed:"); ok {
			c.reads, _ = strconv.ParseInt(v, 10, 64)
			continue
		}
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok || !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		c.cmds[name], _ = strconv.ParseInt(calls, 10, 64)
	}
	return c
}

// since is the cost between snapshot from and snapshot to, infos being the
// number of the meter's INFO commands between them (each one read).
func since(from, to redisCounts, infos int64) opCost {
	c := opCost{byCommand: map[string]int64{}}
	overhead := to.cmds["ping"] - from.cmds["ping"] + to.cmds["hello"] - from.cmds["hello"]
	c.roundTrips = to.reads - from.reads - infos - overhead
	for name, n := range to.cmds {
		if d := n - from.cmds[name]; d > 0 && name != "info" && name != "ping" && name != "hello" {
			c.byCommand[name] = d
			c.commands += d
		}
	}
	return c
}

// quietFor is how long Redis must see no command before the meter takes
// an operation as finished.
const quietFor = 150 * time.Millisecond

// measure runs op and returns what it cost Redis, including the work the
// server finishes after the client saw the operation end (a GET stream's
// cleanup after its connection closed). Nothing announces that end to a
// client, so the meter waits until Redis sees no command for quietFor,
// polling its counters (bounded by 10s).
// Work still running from before (another operation's cleanup) is waited
// out the same way first.
func (m *meter) measure(ctx context.Context, op func()) opCost {
	m.t.Helper()
	before := m.settle(ctx, m.read(ctx))
	op()
	after := m.settle(ctx, m.read(ctx))
	return since(before, after, m.infos(before, after))
}

// settle polls Redis's counters from snapshot from on until Redis saw no
// command for quietFor (bounded by 10s), and returns the last snapshot.
func (m *meter) settle(ctx context.Context, from redisCounts) redisCounts {
	m.t.Helper()
	const poll = 25 * time.Millisecond
	last := from
	quiet := time.Duration(0)
	deadline := time.Now().Add(10 * time.Second)
	for quiet < quietFor {
		if time.Now().After(deadline) {
			m.t.Fatalf("Redis kept seeing commands for 10s: %v", since(from, last, m.infos(from, last)))
		}
		time.Sleep(poll) // polling Redis's counters: see measure
		now := m.read(ctx)
		if since(last, now, 1).commands == 0 {
			quiet += poll
		} else {
			quiet = 0
		}
		last = now
	}
	return last
}

// infos is the number of INFO commands between two snapshots: the meter's
// own reads.
func (m *meter) infos(from, to redisCounts) int64 { return to.cmds["info"] - from.cmds["info"] }

// span returns the cost between two snapshots the caller takes, for work
// measured over time (keep-alive ticks) rather than one operation.
func (m *meter) span(ctx context.Context) func() opCost {
	m.t.Helper()
	before := m.read(ctx)
	return func() opCost {
		m.t.Helper()
		now := m.read(ctx)
		return since(before, now, m.infos(before, now))
	}
}

// readPriming reads a GET stream up to its priming event (2025-11-25).
func readPriming(resp *http.Response) error {
	sc := bufio.NewScanner(resp.Body)
	id := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case line == "" && id != "":
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("the GET stream ended before its priming event")
}

// costRow is one line of the table TestRoundTripsPerOperation logs.
type costRow struct {
	op                   string
	roundTrips, commands float64
	detail               string
}

// TestRoundTripsPerOperation counts what each operation of a 2025-11-25
// session costs Redis, with one replica on a Redis of the test's own, logs
// the table and holds every operation to its budget.
func TestRoundTripsPerOperation(t *testing.T) {
	rd := startPrivateRedis(t, false)
	m := newMeter(t, rd.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rows []costRow
	row := func(op string, c opCost, n int) costRow {
		rt, cmds := c.per(n)
		r := costRow{op, rt, cmds, c.String()}
		if n > 1 {
			r.detail = fmt.Sprintf("%d round trips, %d commands in %d: %s", c.roundTrips, c.commands, n, r.detail)
		}
		rows = append(rows, r)
		return r
	}
	defer func() {
		var b strings.Builder
		b.WriteString("\n| operation (2025-11-25 session) | round trips | commands | counted |\n|---|---:|---:|---|\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %.4g | %.4g | %s |\n", r.op, r.roundTrips, r.commands, r.detail)
		}
		t.Log(b.String())
	}()

	// Per request: a replica with no keep-alive tick in the way.
	rs := startReplicas(t, 1, rd.addr, testPrefix(t), "-keepalive", "1h", "-heartbeat", "1h", "-events=false")
	c := newCluster(rs)
	url := rs[0].url
	s, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Warm up: connections dialled, scripts loaded, once per process and Redis.
	warm, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o := warm.ask(ctx, 0, nil); o.result == nil {
		t.Fatalf("warm-up ask: %+v", o)
	}
	if resp, err := openGET(ctx, warm, url); err != nil {
		t.Fatal(err)
	} else {
		readPriming(resp)
		resp.Body.Close()
	}
	if resp, err := warm.do(ctx, http.MethodDelete, url, nil); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	var callErr error
	plain := row("plain `tools/call`", m.measure(ctx, func() {
		var msg *msg
		msg, _, callErr = s.rpc(ctx, url, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}})
		if callErr == nil && msg.Error != nil {
			callErr = fmt.Errorf("%s", msg.Error.Message)
		}
	}), 1)
	if callErr != nil {
		t.Fatal(callErr)
	}
	var o askOutcome
	elicitCost := m.measure(ctx, func() { o = s.ask(ctx, 1, nil) })
	elicit := row("`tools/call` with one elicitation and its answer", elicitCost, 1)
	if o.result == nil {
		t.Fatalf("ask: %+v", o)
	}
	get := row("GET stream opened and closed", m.measure(ctx, func() {
		resp, err := openGET(ctx, s, url)
		if err == nil {
			err = readPriming(resp)
			resp.Body.Close()
		}
		callErr = err
	}), 1)
	if callErr != nil {
		t.Fatal(callErr)
	}
	// A session with 101 event streams: 100 calls and a GET stream.
	doomed, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n := range 100 {
		if o := doomed.ask(ctx, n, nil); o.result == nil {
			t.Fatalf("ask %d: %+v", n, o)
		}
	}
	if resp, err := openGET(ctx, doomed, url); err != nil {
		t.Fatal(err)
	} else {
		readPriming(resp)
		resp.Body.Close()
	}
	del := row("DELETE of a session with 101 event streams", m.measure(ctx, func() {
		resp, err := doomed.do(ctx, http.MethodDelete, url, nil)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("DELETE: HTTP %d", resp.StatusCode)
			}
		}
		callErr = err
	}), 1)
	if callErr != nil {
		t.Fatal(callErr)
	}
	// A progress notification on a POST that takes JSON only, in a session
	// that never opened a GET stream.
	quiet, err := c.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var progressResult string
	progress := row("a progress notification on a JSON-only POST with no GET stream", m.measure(ctx, func() {
		progressResult, callErr = jsonOnlyProgress(ctx, quiet, url)
	}), 1)
	if callErr != nil {
		t.Fatal(callErr)
	}

	// Per keep-alive tick: a replica ticking every 200ms.
	const every = 200 * time.Millisecond
	ticking := startReplicas(t, 1, rd.addr, testPrefix(t), "-keepalive", every.String(), "-heartbeat", "1h", "-events=false")
	tc := newCluster(ticking)
	ts, err := tc.initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const ticks = 5
	perGET := row("each open GET stream, every keep-alive tick (pings answered)", pingTicks(ctx, t, m, ts, ticking[0].url, ticks), ticks)

	// Connected clients that send nothing (their pings unanswered): one
	// round trip a tick restarts the expiry of all their sessions.
	const quietStreams = 5
	quietCost := quietGETTicks(ctx, t, m, tc, ticking[0].url, quietStreams, ticks)
	quietRow := row(fmt.Sprintf("%d open GET streams whose pings go unanswered, every keep-alive tick", quietStreams), quietCost, max(1, int(quietCost.roundTrips)))

	// Idle sessions cost nothing between ticks; measured over about ten ticks.
	const idle = 20
	for range idle {
		if _, err := tc.initialize(ctx); err != nil {
			t.Fatal(err)
		}
	}
	m.measure(ctx, func() {}) // the sessions' own requests are over
	end := m.span(ctx)
	const window = 10 * every
	time.Sleep(window) // idle sessions: nothing to wait for but time
	idleCost := row("each idle session, every keep-alive tick (10 ticks, 20 sessions)", end(), idle*int(window/every))

	// A replica's heartbeat: its liveness record and its probe, whatever
	// its sessions do (20 beats of 50ms).
	// Once it printed that it listens, its start (its ID claimed, its
	// channels subscribed) is over: what follows is its heartbeat.
	const beat, beats = 50 * time.Millisecond, 20
	m.measure(ctx, func() {})
	beating := startReplicas(t, 1, rd.addr, testPrefix(t), "-keepalive", "1h", "-heartbeat", beat.String(), "-events=false")
	beatEnd := m.span(ctx)
	time.Sleep(beats * beat) // the heartbeat runs on its own clock
	beatCost := row("each replica, every heartbeat (1s by default)", beatEnd(), beats)
	beating[0].stop(t)

	// A replica's events engine with no subscription: its webhook delivery
	// queue, which another replica may fill, asked every PollEvery
	// (500ms), for 3 seconds.
	const eventsWindow = 3 * time.Second
	m.measure(ctx, func() {})
	startReplicas(t, 1, rd.addr, testPrefix(t), "-keepalive", "1h", "-heartbeat", "1h")
	eventsEnd := m.span(ctx)
	time.Sleep(eventsWindow)
	eventsCost := row("each replica's events engine with no subscription, every second", eventsEnd(), int(eventsWindow/time.Second))

	t.Run("budgets", func(t *testing.T) {
		check := func(r costRow, rt, cmds float64) {
			t.Helper()
			if r.roundTrips > rt || (cmds >= 0 && r.commands > cmds) {
				t.Errorf("%s: %.4g round trips, %.4g commands (%s); the budget is %.4g and %.4g", r.op, r.roundTrips, r.commands, r.detail, rt, cmds)
			}
		}
		check(plain, 1, -1)
		// 2 GETEX and each event's one script: its XADD, its place in the
		// session's order (RPUSH), the session's byte count (GET, SET) and the
		// expiries (3 PEXPIRE), the stream indexed at its first (SADD).
		check(elicit, 4, 20)
		check(get, 2, -1)
		check(del, 2, -1)
		check(perGET, 2, -1)
		// Every keep-alive round restarts all five sessions and their GET
		// stream records in one round trip (the window catches the rounds of
		// five ticks, give or take the one at either end).
		rounds, p := quietCost.roundTrips, quietCost.byCommand["pexpire"]
		if p != rounds*2*quietStreams || p != quietCost.commands || rounds < ticks-1 || rounds > ticks+1 {
			t.Errorf("%s: %s; want a round trip of %d PEXPIRE a tick", quietRow.op, quietRow.detail, 2*quietStreams)
		}
		check(idleCost, 0, 0)
		check(beatCost, 1.2, 3.6) // one script: SET, PUBLISH (a beat more or less at either end)
		// Two looks at the delivery queue a second, each at most its due
		// jobs (ZRANGEBYSCORE) and a claim (one script), a look more or
		// less at either end of the window.
		check(eventsCost, 4.5, 9)
		check(progress, 1, -1)
		// An event is one script: no MULTI, no priming event, the stream
		// indexed once (the elicitation and the result: two events, one stream).
		if e := elicitEvents(elicitCost); e != "2 XADD, 1 SADD, 0 MULTI" {
			t.Errorf("the elicitation's events cost %s, want 2 XADD, 1 SADD, 0 MULTI", e)
		}
		if progressResult != "done" {
			t.Errorf("the progress call returned %q, want done", progressResult)
		}
	})
}

// jsonOnlyProgress calls "progress" with a progress token on a POST whose
// Accept takes JSON only, and returns the result's text.
func jsonOnlyProgress(ctx context.Context, s *session, url string) (string, error) {
	id := s.nextID.Add(1)
	resp, err := s.doAccept(ctx, url, "application/json", map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "progress", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "p1"}}})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var text string
	err = readMessages(resp, func(m *msg) (bool, error) {
		if m.Error != nil {
			return true, fmt.Errorf("progress: %s", m.Error.Message)
		}
		text = string(m.Result)
		return true, nil
	})
	if strings.Contains(text, `"isError":true`) {
		return text, nil
	}
	if strings.Contains(text, `"text":"done"`) {
		return "done", err
	}
	return text, err
}

// pingTicks holds a GET stream open on url and answers every keep-alive
// ping on it; it returns what Redis saw between the second ping and the
// ticks+2nd: ticks whole keep-alive rounds of one stream.
func pingTicks(ctx context.Context, t *testing.T, m *meter, s *session, url string, ticks int) opCost {
	t.Helper()
	resp, err := openGET(ctx, s, url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var end func() opCost
	var cost opCost
	pings := 0
	err = readMessages(resp, func(msg *msg) (bool, error) {
		if msg.Method != "ping" {
			return false, nil
		}
		pings++
		switch pings {
		case 2:
			end = m.span(ctx)
		case ticks + 2:
			cost = end()
			return true, nil
		}
		return false, s.post(ctx, url, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{}}, http.StatusAccepted)
	})
	if err != nil {
		t.Fatal(err)
	}
	return cost
}

// elicitEvents says what an elicitation round trip's events cost.
func elicitEvents(c opCost) string {
	return fmt.Sprintf("%d XADD, %d SADD, %d MULTI", c.byCommand["xadd"], c.byCommand["sadd"], c.byCommand["multi"])
}

// quietGETTicks opens n GET streams, one per new session, on url and
// answers none of their pings; it returns what Redis saw over ticks
// keep-alive rounds, counted on the last stream's pings (from its second:
// by then every stream has been open for a whole round).
func quietGETTicks(ctx context.Context, t *testing.T, m *meter, c *cluster, url string, n, ticks int) opCost {
	t.Helper()
	var clock *http.Response
	for i := range n {
		s, err := c.initialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := openGET(ctx, s, url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if i == n-1 {
			clock = resp
		} else {
			go io.Copy(io.Discard, resp.Body)
		}
	}
	var end func() opCost
	var cost opCost
	pings := 0
	err := readMessages(clock, func(msg *msg) (bool, error) {
		if msg.Method != "ping" {
			return false, nil
		}
		pings++
		switch pings {
		case 2:
			end = m.span(ctx)
		case ticks + 2:
			cost = end()
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cost
}
