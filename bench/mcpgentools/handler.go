package mcpgentools

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen/runtime"
)

// Tools implements Handler.
type Tools struct {
	UnimplementedHandler
}

// Add returns a + b.
func (Tools) Add(ctx context.Context, call AddCall, in AddInput) (AddOutput, error) {
	return AddOutput{Sum: in.A + in.B}, nil
}

// Confirm asks the confirm_action form and reports the answer.
func (Tools) Confirm(ctx context.Context, call ConfirmCall, in ConfirmInput) ([]runtime.Content, error) {
	answer, err := call.ElicitConfirmAction(ctx, "")
	switch {
	case errors.Is(err, runtime.ErrDeclined), errors.Is(err, runtime.ErrCancelled):
		return []runtime.Content{runtime.Text("declined")}, nil
	case err != nil:
		return nil, err
	case !answer.Confirm:
		return []runtime.Content{runtime.Text("declined")}, nil
	}
	return []runtime.Content{runtime.Text("confirmed")}, nil
}
