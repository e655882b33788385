package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// Tools answers each call with who made it: the principal's subject and
// scopes, as the handler sees them through its call handle.
type Tools struct{}

var _ Handler = Tools{}

func who(p *runtime.Principal) string {
	if p == nil {
		return "anonymous"
	}
	return p.Subject + " " + strings.Join(p.Scopes, ",")
}

// Read reports the caller.
func (Tools) Read(_ context.Context, call ReadCall, _ ReadInput) ([]runtime.Content, error) {
	return []runtime.Content{runtime.Text(who(call.Principal()))}, nil
}

// Write reports the caller.
func (Tools) Write(_ context.Context, call WriteCall, _ WriteInput) ([]runtime.Content, error) {
	return []runtime.Content{runtime.Text(who(call.Principal()))}, nil
}

// Confirm asks first, then reports the caller's subject and the answer.
func (Tools) Confirm(ctx context.Context, call ConfirmCall, _ ConfirmInput) ([]runtime.Content, error) {
	a, err := call.ElicitConfirmIt(ctx, "Sure?")
	if err != nil {
		return nil, err
	}
	return []runtime.Content{runtime.Text(fmt.Sprintf("%s confirm=%v", call.Principal().Subject, a.Confirm))}, nil
}
