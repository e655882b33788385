package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/examples/conformance/fixtures"
	"github.com/mcpgen/mcpgen/runtime"
)

// --- tasks (tasks-*, the io.modelcontextprotocol/tasks extension) --------
//
// These handlers know nothing of tasks: their tools' JSON says
// execution.taskSupport, and the runtime decides whether a call runs as a
// task. The same Elicit, Progress and context calls work either way.

func (h *handler) Greet(ctx context.Context, call fixtures.GreetCall, in fixtures.GreetInput) ([]runtime.Content, error) {
	return []runtime.Content{runtime.Text("Hello, " + in.Name + "!")}, nil
}

func (h *handler) SlowCompute(ctx context.Context, call fixtures.SlowComputeCall, in fixtures.SlowComputeInput) ([]runtime.Content, error) {
	for i := int64(1); i <= in.Seconds; i++ {
		if err := pause(ctx, time.Second); err != nil {
			return nil, err // cancelled: the task stays cancelled
		}
		_ = call.Progress(ctx, float64(i), float64(in.Seconds), fmt.Sprintf("%s: %d/%d", in.Label, i, in.Seconds))
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("Computation %q completed after %d seconds. Result: 42.", in.Label, in.Seconds))}, nil
}

func (h *handler) FailingJob(ctx context.Context, call fixtures.FailingJobCall, in fixtures.FailingJobInput) ([]runtime.Content, error) {
	if err := pause(ctx, time.Second); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("simulated failure: job crashed") // a tool error (isError)
}

func (h *handler) ProtocolErrorJob(ctx context.Context, call fixtures.ProtocolErrorJobCall, in fixtures.ProtocolErrorJobInput) ([]runtime.Content, error) {
	if err := pause(ctx, 500*time.Millisecond); err != nil {
		return nil, err
	}
	return nil, runtime.NewError(runtime.CodeInternalError, "simulated protocol error: server internal failure")
}

func (h *handler) ConfirmDelete(ctx context.Context, call fixtures.ConfirmDeleteCall, in fixtures.ConfirmDeleteInput) ([]runtime.Content, error) {
	answer, err := call.ElicitDeleteConfirmation(ctx, fmt.Sprintf("Delete '%s'?", in.Filename))
	if action, ok := outcome(err); ok {
		return []runtime.Content{runtime.Text(fmt.Sprintf("kept '%s' (%s)", in.Filename, action))}, nil
	}
	if errors.Is(err, runtime.ErrCapabilityMissing) {
		// Without a way to ask (the first tool listed gets called with no
		// capabilities by the header scenarios), nothing is deleted.
		return []runtime.Content{runtime.Text(fmt.Sprintf("kept '%s' (the client cannot confirm)", in.Filename))}, nil
	}
	if err != nil {
		return nil, err
	}
	if !answer.Confirm {
		return []runtime.Content{runtime.Text(fmt.Sprintf("kept '%s'", in.Filename))}, nil
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("deleted '%s'", in.Filename))}, nil
}

func (h *handler) MultiInput(ctx context.Context, call fixtures.MultiInputCall, in fixtures.MultiInputInput) ([]runtime.Content, error) {
	var (
		who     fixtures.UserName
		confirm fixtures.DeleteConfirmation
	)
	errs := together(
		func() (err error) { who, err = call.ElicitUserName(ctx, "Enter your name:"); return err },
		func() (err error) { confirm, err = call.ElicitDeleteConfirmation(ctx, "Confirm action?"); return err },
	)
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("name=%q confirmed=%t", who.Name, confirm.Confirm))}, nil
}

func (h *handler) TestToolWithTask(ctx context.Context, call fixtures.TestToolWithTaskCall, in fixtures.TestToolWithTaskInput) ([]runtime.Content, error) {
	who, err := call.ElicitUserName(ctx, "")
	if err != nil {
		return nil, err
	}
	if err := pause(ctx, 50*time.Millisecond); err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("Hello, %s! (computed in task)", who.Name))}, nil
}
