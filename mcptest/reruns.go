package mcptest

import (
	"fmt"
	"strings"
)

// rerun records a request whose handler ran more than once: in 2026-07-28
// once per input_required round, in a session once more after each -32042
// the client answered.
type rerun struct {
	era     Era
	request string
	runs    int
	after   [][]string // per run after the first, the questions whose answers it brought
}

// again counts one more run, caused by the answers to keys, and returns the
// runs so far.
func (r *rerun) again(keys []string) int {
	r.runs++
	r.after = append(r.after, keys)
	return r.runs
}

// rerunReport explains, for a failed test, which handlers ran more than
// once and which questions made them: a handler that does work before its
// question does that work again on each run, and in 2026-07-28 that is the
// most likely reason why a test that passes in a session fails.
func (c *Client) rerunReport() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.reruns) == 0 {
		return ""
	}
	var b strings.Builder
	if c.era.stateless() {
		fmt.Fprintf(&b, "mcptest: in protocol %s a handler that asks the client a question ends its round with input_required\n"+
			"and runs again from the top when the client retries with the answer, so whatever it did before the question,\n"+
			"it did again. In this failed test:\n", c.era)
	} else {
		fmt.Fprintf(&b, "mcptest: in protocol %s the client retried a request after the URL elicitations of its -32042 error,\n"+
			"so its handler ran again from the top and whatever it did before the error, it did again. In this failed test:\n", c.era)
	}
	for _, r := range c.reruns {
		fmt.Fprintf(&b, "  %s ran %d times:", r.request, r.runs)
		for i, keys := range r.after {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " run %d came with the answer to %s", i+2, strings.Join(keys, " and "))
		}
		b.WriteString("\n")
	}
	b.WriteString("If what failed is an effect that happened twice, or a state the first run changed before its question,\n" +
		"keep the work before a question idempotent, do it after the last question, or carry it across rounds with\n" +
		"call.SetState (\"Work before a question runs again\" in mcpgen's docs/testing.md).")
	return b.String()
}
