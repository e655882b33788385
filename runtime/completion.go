package runtime

import "context"

// CompletionHandler suggests values for one prompt argument or template
// variable (completion/complete). It cannot ask the client anything: MCP
// allows no input_required round for completion.
type CompletionHandler func(ctx context.Context, req CompletionRequest) (*Completion, error)

// CompletionRequest is what the client is completing.
type CompletionRequest struct {
	// Argument is the argument (or template variable) name, Value what the
	// user typed so far.
	Argument, Value string
	// Context holds the values of the other arguments already chosen
	// (2025-06-18 and later); nil when the client sent none.
	Context map[string]string
}

// Completion is the answer: at most MaxCompletionValues values (more are
// cut, with HasMore set), and optionally how many exist in all.
type Completion struct {
	Values  []string
	Total   int // 0 means unknown
	HasMore bool
}

// MaxCompletionValues is the most values one completion/complete result
// carries, as MCP bounds it.
const MaxCompletionValues = 100

// completionResult is the wire shape of a Completion.
type completionResult struct {
	Completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total,omitempty"`
		HasMore bool     `json:"hasMore,omitempty"`
	} `json:"completion"`
}

func (c *Completion) result() completionResult {
	var r completionResult
	r.Completion.Values = []string{}
	if c == nil {
		return r
	}
	r.Completion.Values = c.Values
	if r.Completion.Values == nil {
		r.Completion.Values = []string{}
	}
	r.Completion.Total, r.Completion.HasMore = c.Total, c.HasMore
	if len(r.Completion.Values) > MaxCompletionValues {
		r.Completion.Values = r.Completion.Values[:MaxCompletionValues]
		r.Completion.HasMore = true
		r.Completion.Total = max(r.Completion.Total, len(c.Values))
	}
	return r
}
