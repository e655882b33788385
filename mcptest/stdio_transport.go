package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
)

// stdioTransport speaks newline-delimited JSON-RPC to one server (a
// ServeStdio in this process, or a subprocess): one reader goroutine routes
// responses to their callers, answers the server's questions and hands
// notifications to the dispatcher.
type stdioTransport struct {
	w    io.WriteCloser // the server's input
	d    dispatcher
	stop func(ctx context.Context) error // waits for the server's end after w is closed

	wmu sync.Mutex

	mu       sync.Mutex
	pending  map[string]chan *message // by request ID
	inFlight map[string]*exchange     // by request ID
	readErr  error
	answers  sync.WaitGroup // goroutines answering the server's questions

	readerDone chan struct{}
	stderr     func() string // the subprocess's stderr, or nil
}

func newStdioTransport(w io.WriteCloser, r io.Reader, d dispatcher, stop func(context.Context) error) *stdioTransport {
	t := &stdioTransport{w: w, d: d, stop: stop, pending: map[string]chan *message{},
		inFlight: map[string]*exchange{}, readerDone: make(chan struct{})}
	go t.read(r)
	return t
}

// startCommand starts cmd with its stdin and stdout as the connection.
func startCommand(cmd *exec.Cmd, d dispatcher) (transport, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logs := &tailBuffer{max: 64 << 10}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	exited := make(chan error, 1)
	var t *stdioTransport
	stop := func(ctx context.Context) error {
		<-t.readerDone // stdout is at EOF (or failed): Wait may close it now
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				return fmt.Errorf("%s: %w", cmd.Path, err)
			}
			return nil
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("%s did not exit after its input was closed; killed it: %w", cmd.Path, ctx.Err())
		}
	}
	t = newStdioTransport(stdin, stdout, d, stop)
	t.stderr = logs.String
	return t, nil
}

// read routes every line the server writes until its output ends.
func (t *stdioTransport) read(r io.Reader) {
	defer close(t.readerDone)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if err != nil {
			t.mu.Lock()
			t.readErr = err
			t.mu.Unlock()
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m, err := decodeMessage(line)
		if err != nil {
			t.mu.Lock()
			t.readErr = err
			t.mu.Unlock()
			return
		}
		switch {
		case m.isResponse() || m.Error != nil:
			t.mu.Lock()
			ch := t.pending[string(m.ID)]
			delete(t.pending, string(m.ID))
			t.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case m.isRequest():
			x := t.exchangeOf(m)
			t.answers.Add(1)
			go func() {
				defer t.answers.Done()
				_ = t.write(t.d.incoming(context.Background(), m, x))
			}()
		case m.isNotification():
			t.d.incoming(context.Background(), m, t.exchangeOf(m))
		}
	}
}

// exchangeOf finds the request a message of the server belongs to: the
// listen stream its subscriptionId names, the call its progressToken names,
// or the only request in flight. Over stdio nothing else tells.
func (t *stdioTransport) exchangeOf(m *message) *exchange {
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Meta          struct {
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if x := t.inFlight[string(p.Meta.SubscriptionID)]; x != nil {
		return x
	}
	var only *exchange
	calls := 0
	for _, x := range t.inFlight {
		if len(p.ProgressToken) > 0 && x.progressToken == string(p.ProgressToken) {
			return x
		}
		if x.method != "subscriptions/listen" {
			only = x
			calls++
		}
	}
	if calls != 1 {
		return nil
	}
	return only
}

func (t *stdioTransport) write(m *message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_, err = t.w.Write(append(b, '\n'))
	return err
}

func (t *stdioTransport) call(ctx context.Context, m *message, x *exchange) (*message, error) {
	ch := make(chan *message, 1)
	id := string(m.ID)
	t.mu.Lock()
	if t.readErr != nil {
		err := t.readErr
		t.mu.Unlock()
		return nil, t.ended(err)
	}
	t.pending[id] = ch
	t.inFlight[id] = x
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.pending, id)
		delete(t.inFlight, id)
		t.mu.Unlock()
	}()
	if err := t.write(m); err != nil {
		return nil, fmt.Errorf("writing to the server: %w", err)
	}
	select {
	case res := <-ch:
		return res, nil
	case <-t.readerDone:
		select {
		case res := <-ch:
			return res, nil
		default:
		}
		t.mu.Lock()
		err := t.readErr
		t.mu.Unlock()
		return nil, t.ended(err)
	case <-ctx.Done():
		params, _ := json.Marshal(map[string]any{"requestId": m.ID, "reason": "the test's context ended"})
		_ = t.write(&message{JSONRPC: "2.0", Method: "notifications/cancelled", Params: params})
		return nil, ctx.Err()
	}
}

// ended explains a read that stopped: the server's output ended.
func (t *stdioTransport) ended(err error) error {
	msg := "the server's output ended"
	if err != nil && !errors.Is(err, io.EOF) {
		msg += ": " + err.Error()
	}
	if t.stderr != nil {
		if logs := t.stderr(); logs != "" {
			msg += "\nits stderr:\n" + logs
		}
	}
	return errors.New(msg)
}

func (t *stdioTransport) notify(ctx context.Context, m *message) error { return t.write(m) }

func (t *stdioTransport) openStandalone(context.Context) error { return nil }

func (t *stdioTransport) close(ctx context.Context) error {
	cerr := t.w.Close() // EOF: the server lets running calls finish and ends
	err := t.stop(ctx)
	select {
	case <-t.readerDone:
	case <-ctx.Done():
		err = errors.Join(err, fmt.Errorf("the server's output did not end: %w", ctx.Err()))
	}
	t.answers.Wait()
	return errors.Join(cerr, err)
}

// readLine reads one line, bounded by maxMessageBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxMessageBytes {
			return nil, fmt.Errorf("a line of the server is longer than %d bytes", maxMessageBytes)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// tailBuffer keeps the last max bytes written to it (a subprocess's
// stderr, shown when something fails).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b = append(b.b, p...)
	if over := len(b.b) - b.max; over > 0 {
		b.b = append(b.b[:0], b.b[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.b)
}
