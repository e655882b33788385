// Command replica is the test server of the multi-replica tests: one MCP
// server process with an elicitation tool, sharing its sessions, pending
// requests and events with its peers through Redis. It binds 127.0.0.1:0 and
// prints "listening http://ADDR/mcp replica=ID stats=URL" on stdout once it
// serves (stats.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/ext/tasks"
	"github.com/mcpgen/mcpgen/redisstore"
	"github.com/mcpgen/mcpgen/redisstore/internal/redisconn"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/redis/go-redis/v9"
)

// pick is the form the "ask" tool sends: one integer.
var pick = &runtime.Elicitation{
	Name:            "pick",
	Mode:            "form",
	Message:         "Pick a number",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"]}`),
}

const askDefinition = `{"name":"ask","description":"Asks the user for a number and echoes it with the call's own n.",` +
	`"inputSchema":{"type":"object","properties":{"n":{"type":"integer"},"session":{"type":"string"}},"required":["n"]}}`

// AskResult is what "ask" returns as its text block.
type AskResult struct {
	N       int    `json:"n"`
	Value   int    `json:"value"`
	Replica string `json:"replica"`
	State   string `json:"state"`
}

func main() {
	redisSpec := flag.String("redis", "127.0.0.1:6379", "the Redis deployment: HOST:PORT, cluster:HOST:PORT,... or sentinel:MASTER@HOST:PORT,...")
	prefix := flag.String("prefix", "mcpgen:", "Redis key prefix")
	requestTimeout := flag.Duration("request-timeout", 10*time.Second, "bound on each wait for a client's answer")
	opTimeout := flag.Duration("op-timeout", 3*time.Second, "bound on each Redis operation")
	heartbeat := flag.Duration("heartbeat", 0, "the store's heartbeat (0: its default); the round-trip counts set it past their run, so that it adds nothing to what they measure")
	keepAlive := flag.Duration("keepalive", 0, "keep-alive interval (0: the runtime's default); it bounds how soon a session deleted elsewhere ends here")
	idle := flag.Duration("idle", 0, "session idle timeout, of the runtime and the store (0: defaults)")
	stateKey := flag.String("state-key", os.Getenv("MCPGEN_STATE_KEY"), "the shared key that seals 2026-07-28 requestState")
	debug := flag.Bool("debug", false, "debug logs on stderr")
	memory := flag.Bool("memory", false, "in-memory stores (one process, no Redis): the benchmarks' baseline")
	singleUse := flag.Bool("single-use", false, "single-use requestState (Options.SingleUseState)")
	taskLease := flag.Duration("task-lease", 0, "lease of a running task (tasks.Options.Lease; 0: the default)")
	withEvents := flag.Bool("events", true, "serve the events extension; its webhook delivery queue asks Redis twice a second, which the round-trip counts measure on their own")
	auth := flag.Bool("auth", false, `demand bearer tokens "subject;scope+scope": tests name their principals`)
	flag.Parse()

	level := slog.LevelWarn
	if *debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	redis.SetLogger(quietRedis{})
	spec, err := redisconn.Parse(*redisSpec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(2)
	}
	rdb := redisconn.New(spec, redisconn.Tuning{Timeout: *opTimeout, MaxRetries: 1, PoolSize: 128,
		DisableIdentity: true}) // a new connection is one round trip (HELLO), which the round-trip counts leave out
	defer rdb.Close()
	opts := runtime.Options{Name: "replica", Version: "1.0.0", Logger: logger, RequestTimeout: *requestTimeout, KeepAlive: *keepAlive,
		SessionIdleTimeout: *idle, SingleUseState: *singleUse,
		StateKey: []byte(*stateKey)}
	changes := &rootsChanges{}
	opts.RootsChanged = changes.hook
	if *auth {
		opts.Auth = &runtime.Auth{Resource: "http://127.0.0.1/mcp", AuthorizationServers: []string{"https://issuer.test"},
			Verifier: runtime.TokenVerifierFunc(testToken)}
	}
	replicaID := "memory"
	taskOpts := tasks.Options{Lease: *taskLease}
	if !*memory {
		store, err := redisstore.New(ctx, rdb, redisstore.Options{Prefix: *prefix, OpTimeout: *opTimeout, SessionIdle: *idle,
			Heartbeat: *heartbeat, Logger: logger})
		if err != nil {
			fmt.Fprintln(os.Stderr, "replica:", err)
			os.Exit(1)
		}
		defer store.Close()
		store.Configure(&opts)
		replicaID = store.ReplicaID()
		taskOpts.Store = store.Tasks()
	}
	srv := runtime.NewServer(opts)
	if err := tasks.Add(srv, taskOpts); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	err = srv.AddTool(runtime.Tool{
		Name:         "ask",
		Definition:   json.RawMessage(askDefinition),
		Elicitations: []*runtime.Elicitation{pick},
		Handler: func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var in struct {
				N int `json:"n"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			if err := call.Log(ctx, runtime.LevelInfo, "ask", fmt.Sprintf("asking for call %d", in.N)); err != nil {
				return nil, err
			}
			var ans struct {
				Value int `json:"value"`
			}
			// The call's own state: in 2026-07-28 it travels sealed in
			// requestState, so a retry on another replica gets it back only
			// if that replica has the same StateKey.
			if call.State() == nil {
				call.SetState([]byte(fmt.Sprintf("state of call %d", in.N)))
			}
			if err := call.Elicit(ctx, pick, fmt.Sprintf("call %d", in.N), &ans); err != nil {
				return nil, err
			}
			out, _ := json.Marshal(AskResult{N: in.N, Value: ans.Value, Replica: replicaID, State: string(call.State())})
			return runtime.ContentResult(call, []runtime.Content{runtime.Text(string(out))}), nil
		},
	})
	if err == nil {
		err = srv.AddTool(completeURLTool(srv))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	if err := addTouch(srv); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	if err := addTaskTools(srv, replicaID); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	if err := addPlainTools(srv); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	if err := addRootsTools(srv, changes, replicaID); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	if err := addSkill(srv); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	if *withEvents {
		stopEvents, err := addEvents(srv, rdb, *prefix, []byte(*stateKey), *memory, logger)
		if err != nil {
			fmt.Fprintln(os.Stderr, "replica:", err)
			os.Exit(1)
		}
		defer stopEvents()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	stats, err := serveStats()
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
	fmt.Printf("listening http://%s/mcp replica=%s stats=%s\n", ln.Addr(), replicaID, stats)
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

// testToken reads a test token "subject;scope+scope": each test names the
// principals it needs. Only tests start replicas, on loopback.
func testToken(_ context.Context, tok string) (*runtime.Principal, error) {
	sub, scopes, ok := strings.Cut(tok, ";")
	if !ok || sub == "" {
		return nil, fmt.Errorf("%w: not a test token", runtime.ErrInvalidToken)
	}
	return &runtime.Principal{Issuer: "https://issuer.test", Subject: sub, Scopes: strings.FieldsFunc(scopes, func(r rune) bool { return r == '+' }),
		Expiry: time.Now().Add(time.Hour)}, nil
}

// quietRedis drops go-redis's own log lines (one per failed dial while Redis
// is down); the store reports failures through its errors and logger.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

// addTouch registers the resource replica://doc and the tool "touch", which
// announces that a resource changed (notifications/resources/updated) and
// that the resource list changed, from whichever replica runs it.
func addTouch(srv *runtime.Server) error {
	err := srv.AddResource(runtime.Resource{
		URI:        "replica://doc",
		Definition: json.RawMessage(`{"uri":"replica://doc","name":"doc","mimeType":"text/plain"}`),
		Handler: func(context.Context, *runtime.Call, string) (*runtime.ResourceResult, error) {
			return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{Text: "doc"}}}, nil
		},
	})
	if err != nil {
		return err
	}
	return srv.AddTool(runtime.Tool{
		Name: "touch",
		Definition: json.RawMessage(`{"name":"touch","description":"Announces a change of a resource and of the resource list.",` +
			`"inputSchema":{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}}`),
		Handler: func(_ context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var in struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			srv.NotifyResourceUpdated(in.URI)
			srv.NotifyResourceListChanged()
			return runtime.ContentResult(call, []runtime.Content{runtime.Text("touched")}), nil
		},
	})
}

// completeURLTool stands in for the out-of-band side of a URL-mode
// elicitation (an OAuth callback, a payment webhook) that lands on whichever
// replica: it completes the named elicitation of the named session.
func completeURLTool(srv *runtime.Server) runtime.Tool {
	return runtime.Tool{
		Name: "complete_url",
		Definition: json.RawMessage(`{"name":"complete_url","description":"Completes a URL-mode elicitation of a session.",` +
			`"inputSchema":{"type":"object","properties":{"sessionId":{"type":"string"},"elicitationId":{"type":"string"}},"required":["sessionId","elicitationId"]}}`),
		Handler: func(ctx context.Context, call *runtime.Call, args json.RawMessage) (*runtime.ToolResult, error) {
			var ref runtime.URLElicitationRef
			if err := json.Unmarshal(args, &ref); err != nil {
				return nil, err
			}
			if err := srv.CompleteURLElicitation(ctx, ref); err != nil {
				return nil, err
			}
			return runtime.ContentResult(call, []runtime.Content{runtime.Text("completed")}), nil
		},
	}
}
