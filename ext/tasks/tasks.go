// Package tasks runs long tools as tasks on a runtime.Server: 2025-11-25's
// experimental tasks and the 2026-07-28 extension
// io.modelcontextprotocol/tasks (SEP-2663), one engine for both.
//
// A tool whose definition says "execution": {"taskSupport": "optional"}
// (or "required") may run as a task: tools/call answers at once with the
// task, and the handler runs on in a goroutine of its own. The client polls
// the task (tasks/get), answers its questions, fetches the result and may
// cancel it, through any replica that shares the Store.
//
//   - 2025-11-25: the client asks for a task with params.task; questions
//     reach it on the stream of its tasks/result, which blocks until the
//     task ends and returns the tool's result; tasks/list pages the
//     session's tasks.
//   - 2026-07-28: a client that declares the extension in the request's
//     _meta gets a task (resultType "task"); questions appear as
//     inputRequests in tasks/get and are answered with tasks/update;
//     tasks/get carries the result.
//
// The package is an extension like any other: Add plugs it into the
// runtime's seam (a tool-call hook that detaches the call, the tasks
// methods, a capability that follows the registered tools, a session-end
// listener), and the runtime knows nothing of tasks. The generated
// Register of a package with task tools calls Enable; call Add before it
// to choose the Options (a Redis Store for replicas, the bounds).
package tasks

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// ExtensionID identifies the 2026-07-28 tasks extension in
// capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/tasks"

// Options are the server-wide settings of the tasks engine. The zero value
// is safe: one process, bounded.
type Options struct {
	// Store holds the tasks; nil means a MemoryStore of this process,
	// bounded by MaxTasks. Replicas that serve one client share one
	// (module github.com/mcpgen/mcpgen/redisstore: Store.Tasks).
	Store Store
	// MaxTasks bounds the tasks this process creates and keeps, whatever
	// their status, until their TTL passes; 0 means 10,000. Each caller may
	// hold its runtime.Options.CallerShare of them; a finished task keeps
	// its slot here but no slot of runtime.Options.MaxConcurrentCalls.
	MaxTasks int
	// TTL is how long a task is kept from its creation, and the longest a
	// 2025-11-25 client may ask for; 0 means 1 hour.
	TTL time.Duration
	// PollInterval is the poll interval suggested to clients; 0 means 1s.
	PollInterval time.Duration
	// Lease is how long a task outlives the last sign of life of the
	// replica running it before it is reported failed (that replica renews
	// it every third of it); it also bounds each store write of a task
	// that outlives its request. 0 means 30s. TTL, PollInterval and Lease
	// cannot be disabled: 0 or less takes the default.
	Lease time.Duration
	// MaxResultBytes bounds the bytes of task results this process keeps
	// (each until its task's TTL passes); a result that does not fit, in
	// the whole bound or its caller's share, fails its task with an error
	// naming the bound. 0 means 256 MiB, negative no bound.
	MaxResultBytes int64
	// InputBeforeTask names tools that ask their first questions in
	// 2026-07-28 input_required rounds and become tasks once they have the
	// answers (SEP-2663's multi round-trip before task creation); other
	// task tools become tasks at once and ask inside the task. Each round
	// runs the handler as a plain call until it has taken every answer the
	// round carried, so list only tools that ask before they work.
	InputBeforeTask []string
}

// withDefaults fills in the zero fields.
func (o Options) withDefaults() Options {
	if o.MaxTasks <= 0 {
		o.MaxTasks = 10_000
	}
	if o.MaxResultBytes == 0 {
		o.MaxResultBytes = 256 << 20
	}
	for _, d := range []struct {
		p *time.Duration
		v time.Duration
	}{{&o.TTL, time.Hour}, {&o.PollInterval, time.Second}, {&o.Lease, 30 * time.Second}} {
		if *d.p <= 0 {
			*d.p = d.v // a task bound cannot be disabled
		}
	}
	if o.Store == nil {
		o.Store = &MemoryStore{Limit: o.MaxTasks}
	}
	return o
}

// Add serves tasks on s with opts. Adding it a second time with the same
// Options does nothing; with other Options it fails, and changes nothing
// (Enable after Add does nothing either).
func Add(s *runtime.Server, opts Options) error {
	if have, ok := s.Extension(ExtensionID); ok {
		e, ok := have.State.(*engine)
		switch {
		case !ok:
			return fmt.Errorf("tasks: %s was added by another package: %w", ExtensionID, runtime.ErrExtensionAdded)
		case !e.sameOptions(opts):
			return fmt.Errorf("tasks: added a second time with other Options: %w", runtime.ErrExtensionAdded)
		}
		return nil
	}
	e := newEngine(opts)
	return s.AddExtension(e.extension())
}

// Enable serves tasks on s with the default Options, unless tasks are
// served already (then it does nothing, whatever Options they have). The
// generated Register of a package with a tool that may run as a task calls
// it.
func Enable(s *runtime.Server) error {
	if _, ok := s.Extension(ExtensionID); ok {
		return nil
	}
	err := Add(s, Options{})
	if errors.Is(err, runtime.ErrExtensionAdded) {
		return nil
	}
	return err
}

// sameOptions reports whether opts (as given to Add) are the engine's.
func (e *engine) sameOptions(opts Options) bool {
	return reflect.DeepEqual(e.given, opts)
}
