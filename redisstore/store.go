// Package redisstore keeps legacy MCP sessions and resumable SSE events in
// Redis and carries answers, cancellations and fallback messages between
// replicas over its pub/sub, so that any replica behind a load balancer
// without stickiness serves any request of any session.
//
// It costs Redis as little as it can: a request reads its session once (and
// an answer to the replica that asked nothing more), an SSE event is one
// pipelined write, a GET stream one round trip to open and one to close,
// and an idle session nothing at all until it expires.
//
// One Store per server process. It is safe for concurrent use.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Options tune a Store. The zero value is usable.
type Options struct {
	// Prefix starts every key and channel name; default "mcpgen:". Deployments
	// sharing one Redis use different prefixes.
	Prefix string
	// OpTimeout bounds every Redis operation the store makes; default 2s. A
	// Redis that does not answer within it makes the operation fail (the
	// runtime answers 503), it never hangs a request.
	OpTimeout time.Duration
	// EventsPerStream is how many SSE events are kept per stream for
	// Last-Event-ID replay; default 1000. Older ones are evicted.
	EventsPerStream int64
	// EventTTL is how long a stream's events are kept after its last event;
	// default 1h.
	EventTTL time.Duration
	// MaxEventBytes bounds the data of one stored event; default 1 MiB. A
	// larger event is stored without its data (a resume point that replays
	// as nothing), so that EventsPerStream large messages cannot fill Redis.
	MaxEventBytes int
	// SessionEventBytes bounds the events one session keeps across all its
	// streams, each counting its data and 128 bytes; default 1 MiB, as the
	// in-memory store. The oldest go first (a replay from before them gets
	// runtime.ErrEventNotFound), so a session cannot hold more than this
	// however many streams it opens.
	SessionEventBytes int
	// BusBuffer is how many bus messages one local subscriber may fall behind
	// before it is cut off (its channel closes); default 1024.
	BusBuffer int
	// SessionIdle is how long a session lives without a sign of its client;
	// default 30m. Every request restarts it (Load refreshes the expiry in
	// the same round trip), and so do the opening and the end of a GET
	// stream and, once a keep-alive tick, a connection the client holds open
	// (Keep).
	SessionIdle time.Duration
	// PendingTTL bounds how long a pending server-to-client request stays
	// answerable; default 10m. It is the longest a user may take to answer an
	// elicitation: Configure caps the runtime's RequestTimeout at it.
	PendingTTL time.Duration
	// TombstoneTTL is how long an expired (or already answered) request
	// answers "request expired" on every replica; default 5m. The replica
	// that sent the request remembers it, within 10,000 requests.
	TombstoneTTL time.Duration
	// Heartbeat is how often a replica renews its liveness record and
	// checks, with a probe through Redis, that its pub/sub subscription
	// receives what is published; default 1s. A replica killed without
	// Close is taken for gone 3 heartbeats later; a subscription that stopped
	// receiving (a Sentinel failover left it on the old primary, a proxy
	// dropped it silently) is made again within 3 heartbeats.
	Heartbeat time.Duration
	// DeliveryTimeout bounds the delivery of a message to another replica
	// (an answer to the replica that asked for it, a message to the replica
	// holding a GET stream), which confirms each one; unconfirmed, it is
	// sent again every deliveryRetry; default 5s, long enough to cover a
	// subscription being made again after a failover.
	DeliveryTimeout time.Duration
	// Logger receives the store's logs, among them the detail of every
	// Redis failure (which clients never see); nil means the runtime's
	// Options.Logger when Configure is called, else discard.
	Logger *slog.Logger
}

// Store implements the runtime's session store, pending-request router,
// session bus and event store on one Redis, a Redis Cluster or a
// Sentinel-managed primary (any redis.UniversalClient; docs/replicas.md
// says what each deployment guarantees).
type Store struct {
	rdb    redis.UniversalClient
	opts   Options
	logp   atomic.Pointer[slog.Logger] // Configure may set it (Options.Logger nil)
	id     string                      // routing ID of this process: answers for its requests, and messages for its GET streams, come to its channel
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the receive goroutines and the heartbeat

	failures failureLog // the detail of Redis failures, for the log

	probeSeen atomic.Uint64 // the newest heartbeat probe that came back through the subscription

	subMu     sync.Mutex    // orders SUBSCRIBE and UNSUBSCRIBE commands, and guards ps
	ps        *redis.PubSub // the subscription connection; the heartbeat may replace it
	mu        sync.Mutex
	waits     map[pendingKey]func(runtime.Answer)   // this process's server-to-client requests waiting for answers
	tombs     map[pendingKey]time.Time              // expired (or answered) requests, until when they say so
	tombOrder []pendingKey                          // tombs, oldest first
	replies   map[string]chan runtime.Resolution    // forwarded answers waiting for their outcome, by token
	holds     map[string][]*subscription            // session -> GET streams held here (HoldGET), newest last
	subs      map[string]map[*subscription]struct{} // channel -> local subscribers
	confirmed map[string]chan struct{}              // channel -> closed once Redis confirmed the subscription
	delivered deliveredLog                          // messages from other replicas already handled, by token
	closed    bool

	signalFns    map[int]func(session, kind string, data []byte) // OnSignal handlers
	nextSignalFn int
}

type pendingKey struct{ session, id string }

// replicaIDLen is the length of a replica ID: 8 random bytes, hex-encoded.
const replicaIDLen = 16

// New starts a Store on rdb: it claims a routing ID and subscribes to this
// process's channel, to session deletions and to session signals
// (cancellations, GET stream openings). Close it on shutdown.
func New(ctx context.Context, rdb redis.UniversalClient, opts Options) (*Store, error) {
	if opts.Prefix == "" {
		opts.Prefix = "mcpgen:"
	}
	if opts.OpTimeout <= 0 {
		opts.OpTimeout = 2 * time.Second
	}
	if opts.EventsPerStream <= 0 {
		opts.EventsPerStream = 1000
	}
	if opts.EventTTL <= 0 {
		opts.EventTTL = time.Hour
	}
	if opts.MaxEventBytes <= 0 {
		opts.MaxEventBytes = 1 << 20
	}
	if opts.SessionEventBytes <= 0 {
		opts.SessionEventBytes = 1 << 20
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = 30 * time.Minute
	}
	if opts.PendingTTL <= 0 {
		opts.PendingTTL = 10 * time.Minute
	}
	if opts.TombstoneTTL <= 0 {
		opts.TombstoneTTL = 5 * time.Minute
	}
	if opts.BusBuffer <= 0 {
		opts.BusBuffer = 1024
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = time.Second
	}
	if opts.DeliveryTimeout <= 0 {
		opts.DeliveryTimeout = 5 * time.Second
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		rdb: rdb, opts: opts,
		waits:     map[pendingKey]func(runtime.Answer){},
		tombs:     map[pendingKey]time.Time{},
		replies:   map[string]chan runtime.Resolution{},
		holds:     map[string][]*subscription{},
		subs:      map[string]map[*subscription]struct{}{},
		confirmed: map[string]chan struct{}{},
		signalFns: map[int]func(string, string, []byte){},
	}
	s.logp.Store(logger)
	if err := s.claimID(ctx); err != nil {
		var ue *UnavailableError
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("redisstore: claiming a replica ID: %w", ue.Err) // for the operator starting the server
		}
		return nil, err
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.subMu.Lock()
	s.ps = s.listen()
	s.subMu.Unlock()
	if err := s.subscribeChannels(ctx, s.answerChannel(s.id), s.deletedChannel(), s.signalChannel()); err != nil {
		s.Close()
		return nil, fmt.Errorf("redisstore: subscribing: %w", err)
	}
	s.wg.Add(1)
	go s.heartbeat()
	return s, nil
}

var errAllIDsTaken = errors.New("redisstore: could not claim a unique replica ID")

// listen opens a subscription connection and starts the goroutine that
// reads it; s.subMu is held.
func (s *Store) listen() *redis.PubSub {
	ps := s.rdb.Subscribe(s.ctx)
	msgs := ps.ChannelWithSubscriptions(redis.WithChannelSize(4096), redis.WithChannelSendTimeout(time.Second))
	s.wg.Add(1)
	go s.receive(msgs)
	return ps
}

// Configure selects the store in the runtime's options: sessions and events
// live in Redis, answers reach the replica that asked (outbound request IDs
// carry this process's replica ID), fallback messages reach a GET stream on
// any replica through the session bus, and spent single-use requestStates
// are recorded for every replica. This is the one line a deployment adds:
//
//	st.Configure(&opts)
//	srv := runtime.NewServer(opts)
func (s *Store) Configure(o *runtime.Options) {
	if o.Logger != nil && s.opts.Logger == nil {
		s.logp.Store(o.Logger)
	}
	o.Sessions = s.Sessions()
	o.Pending = s.Pending()
	o.Events = eventStore{s: s, deletedWithSessions: true} // a session's Delete drops its events too
	o.Bus = s
	if o.StateLedger == nil {
		o.StateLedger = s.StateLedger()
	}
	o.ReplicaID = s.id
	if o.TaskStore == nil {
		o.TaskStore = s.Tasks()
	}
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = s.opts.SessionIdle
	}
	// PendingTTL is the longest wait for an answer a deployment allows.
	if o.RequestTimeout <= 0 || o.RequestTimeout > s.opts.PendingTTL {
		o.RequestTimeout = s.opts.PendingTTL
	}
}

// ReplicaID is this process's routing ID (random, claimed in Redis at New).
// It is a fine value for runtime.Options.ReplicaID.
func (s *Store) ReplicaID() string { return s.id }

// Close stops the store: answers for this process's pending requests are no
// longer received (they get "request expired") and bus subscriptions close. The Redis client stays open.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	clear(s.waits)
	for session, held := range s.holds {
		for _, sub := range held {
			sub.closeLocked()
		}
		delete(s.holds, session)
	}
	for ch, set := range s.subs {
		for sub := range set {
			sub.closeLocked()
		}
		delete(s.subs, ch)
	}
	s.mu.Unlock()
	s.cancel() // the heartbeat stops before the subscription closes: it does not replace it
	s.subMu.Lock()
	var err error
	if s.ps != nil {
		err = s.ps.Close()
	}
	s.subMu.Unlock()
	s.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.OpTimeout)
	defer cancel()
	s.rdb.Del(ctx, s.livenessKey(s.id)) // the other replicas take it for gone at once
	return err
}

func (s *Store) logger() *slog.Logger { return s.logp.Load() }

// op bounds one Redis operation.
func (s *Store) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opts.OpTimeout)
}

// Keys. Every key of a session carries the session ID in braces (a Redis
// Cluster hash tag), so a session's keys share one slot and its scripts run
// on one node.
func (s *Store) sessionKey(id string) string     { return s.opts.Prefix + "s:{" + id + "}" }
func (s *Store) holderKey(session string) string { return s.opts.Prefix + "g:{" + session + "}" }
func (s *Store) eventsKey(session, stream string) string {
	return s.opts.Prefix + "e:{" + session + "}:" + stream
}
func (s *Store) streamsKey(session string) string    { return s.opts.Prefix + "es:{" + session + "}" }
func (s *Store) eventOrderKey(session string) string { return s.opts.Prefix + "eo:{" + session + "}" }
func (s *Store) eventBytesKey(session string) string { return s.opts.Prefix + "eb:{" + session + "}" }
func (s *Store) busChannel(session, topic string) string {
	return s.opts.Prefix + "b:{" + session + "}:" + topic
}
func (s *Store) answerChannel(replica string) string { return s.opts.Prefix + "r:" + replica }
func (s *Store) deletedChannel() string              { return s.opts.Prefix + "deleted" }
func (s *Store) signalChannel() string               { return s.opts.Prefix + "signal" }

// receive dispatches everything the pub/sub connection delivers. It never
// blocks on a slow consumer.
func (s *Store) receive(msgs <-chan any) {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				return
			}
			switch m := m.(type) {
			case *redis.Subscription:
				if m.Kind == "subscribe" {
					s.mu.Lock()
					if c, ok := s.confirmed[m.Channel]; ok {
						select {
						case <-c:
						default:
							close(c)
						}
					}
					s.mu.Unlock()
				}
			case *redis.Message:
				switch m.Channel {
				case s.answerChannel(s.id):
					s.receiveOwn([]byte(m.Payload))
				case s.deletedChannel():
					s.sessionDeleted(m.Payload)
				case s.signalChannel():
					s.receiveSignal(m.Payload)
				default:
					s.dispatch(m.Channel, []byte(m.Payload))
				}
			}
		}
	}
}

// receiveOwn dispatches what arrived on this replica's own channel.
func (s *Store) receiveOwn(payload []byte) {
	if len(payload) == 0 {
		return
	}
	switch payload[0] {
	case kindAnswer:
		s.receiveAnswer(payload)
	case kindReply:
		s.receiveReply(payload)
	case kindGET:
		s.receiveGET(payload)
	case kindProbe:
		s.receiveProbe(payload)
	default:
		s.logger().Warn("redisstore: unknown message on the replica's channel", "kind", payload[0])
	}
}

// subscribeChannels subscribes the shared pub/sub connection to channels and
// waits until Redis confirmed them, so that anything published afterwards is
// received.
func (s *Store) subscribeChannels(ctx context.Context, channels ...string) error {
	var waits []chan struct{}
	var fresh []string
	s.mu.Lock()
	for _, ch := range channels {
		c, ok := s.confirmed[ch]
		if !ok {
			c = make(chan struct{})
			s.confirmed[ch] = c
			fresh = append(fresh, ch)
		}
		waits = append(waits, c)
	}
	s.mu.Unlock()
	ctx, cancel := s.op(ctx)
	defer cancel()
	if len(fresh) > 0 {
		s.subMu.Lock()
		err := s.ps.Subscribe(ctx, fresh...)
		s.subMu.Unlock()
		if err != nil {
			s.mu.Lock()
			for _, ch := range fresh {
				delete(s.confirmed, ch)
			}
			s.mu.Unlock()
			return s.unavailable("subscribing", err)
		}
	}
	for _, c := range waits {
		select {
		case <-c:
		case <-ctx.Done():
			return s.unavailable("subscribing", fmt.Errorf("subscription not confirmed: %w", ctx.Err()))
		}
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
