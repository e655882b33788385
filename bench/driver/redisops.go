package driver

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// RedisOp is what one operation of a legacy session costs the server's
// Redis (workload R), over Per repetitions.
type RedisOp struct {
	Name string    `json:"name"`
	Per  int       `json:"per"`
	Cost RedisCost `json:"cost"`
}

// RoundTrips and Commands are the cost of one repetition.
func (o RedisOp) RoundTrips() float64 { return float64(o.Cost.RoundTrips) / float64(o.Per) }

// Commands is the number of commands of one repetition.
func (o RedisOp) Commands() float64 { return float64(o.Cost.Commands) / float64(o.Per) }

// Each operation of workload R, by name.
const (
	OpCall       = "plain tools/call (W1's call)"
	OpModernCall = "2026-07-28 tools/call (W2's call)"
	OpElicit     = "tools/call with one elicitation and its answer (W3's call)"
	OpGET        = "GET stream opened and closed"
	OpDelete     = "DELETE of a session with 101 event streams"
	OpPingTick   = "each open GET stream, every keep-alive tick (pings answered)"
	OpIdleTick   = "each idle session, every keep-alive tick"
)

// runRedisOps measures, one at a time on a server whose Redis is cfg's,
// what each operation of a session costs Redis. Each runs once unmeasured
// first (connections dialled, scripts loaded). The keep-alive rows need
// the server's keep-alive interval (cfg.KeepAlive) short: they take ten
// intervals each.
func runRedisOps(ctx context.Context, c *Client, cfg Config) (*Result, error) {
	if cfg.RedisAddr == "" || cfg.KeepAlive <= 0 {
		return nil, errors.New("workload R needs the server's Redis (-redis) and its keep-alive interval (-keepalive)")
	}
	m := NewRedisMeter(cfg.RedisAddr)
	defer m.Close()
	r := &Result{Workload: R}
	add := func(name string, per int, cost RedisCost) {
		r.Ops = append(r.Ops, RedisOp{Name: name, Per: per, Cost: cost})
	}
	once := func(name string, op func() error) error {
		if err := op(); err != nil { // the warm-up
			return fmt.Errorf("%s: %w", name, err)
		}
		cost, err := m.Measure(ctx, op)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		add(name, 1, cost)
		return nil
	}
	s, err := c.Initialize(ctx, true)
	if err != nil {
		return nil, err
	}
	modern := c.Stateless()
	n := int64(0)
	for _, step := range []struct {
		name string
		op   func() error
	}{
		{OpCall, func() error { n++; return s.CallAdd(ctx, n) }},
		{OpModernCall, func() error { n++; return modern.CallAdd(ctx, n) }},
		{OpElicit, func() error { return s.Confirm(ctx) }},
		{OpGET, func() error {
			g, err := s.OpenGET(ctx)
			if err == nil {
				g.Close()
			}
			return err
		}},
	} {
		if err := once(step.name, step.op); err != nil {
			return nil, err
		}
	}
	// DELETE of a session with 100 call streams and a GET stream: once
	// unmeasured, once measured.
	var del RedisCost
	for range 2 {
		doomed, err := c.Initialize(ctx, true)
		if err != nil {
			return nil, err
		}
		for range 100 {
			if err := doomed.Confirm(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", OpDelete, err)
			}
		}
		g, err := doomed.OpenGET(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", OpDelete, err)
		}
		g.Close()
		if del, err = m.Measure(ctx, func() error { return doomed.Delete(ctx) }); err != nil {
			return nil, fmt.Errorf("%s: %w", OpDelete, err)
		}
	}
	add(OpDelete, 1, del)
	ticks, err := pingTicks(ctx, m, s, 5)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpPingTick, err)
	}
	add(OpPingTick, 5, ticks)
	const idle = 20
	for range idle {
		if _, err := c.Initialize(ctx, false); err != nil {
			return nil, err
		}
	}
	start, err := m.Read(ctx)
	if err == nil {
		start, err = m.Settle(ctx, start)
	}
	if err != nil {
		return nil, err
	}
	window := 10 * cfg.KeepAlive
	select {
	case <-time.After(window): // idle sessions: nothing to wait for but time
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	end, err := m.Read(ctx)
	if err != nil {
		return nil, err
	}
	add(OpIdleTick, idle*int(window/cfg.KeepAlive), Since(start, end))
	return r, nil
}

// pingTicks holds the session's GET stream open, answers every keep-alive
// ping on it, and returns what Redis saw from the second ping to the
// ticks+2nd: ticks whole keep-alive rounds.
func pingTicks(ctx context.Context, m *RedisMeter, s *Session, ticks int) (RedisCost, error) {
	g, err := s.OpenGET(ctx)
	if err != nil {
		return RedisCost{}, err
	}
	defer g.Close()
	var start RedisCounts
	for pings := 1; ; pings++ {
		req, err := g.NextRequest()
		if err != nil {
			return RedisCost{}, err
		}
		if req.Method != "ping" {
			return RedisCost{}, fmt.Errorf("unexpected %s on the GET stream", req.Method)
		}
		switch pings {
		case 2:
			if start, err = m.Read(ctx); err != nil {
				return RedisCost{}, err
			}
		case ticks + 2:
			end, err := m.Read(ctx)
			return Since(start, end), err
		}
		if err := s.AnswerEmpty(ctx, req.ID); err != nil {
			return RedisCost{}, err
		}
	}
}
