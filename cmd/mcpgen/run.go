package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// usageError marks an error in how mcpgen was called: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errReported means the problems were already printed: exit 1, no more output.
var errReported = errors.New("problems reported")

// Run runs mcpgen with args (without the program name) and returns the exit
// code: 0 on success, 1 on failure, 2 for a usage error.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(normalizeArgs(root, args))
	err := root.Execute()
	if err == nil {
		return 0
	}
	if errors.Is(err, errReported) {
		return 1
	}
	fmt.Fprintf(stderr, "mcpgen: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
		fmt.Fprintln(stderr, "Run 'mcpgen help' for usage.")
		return 2
	}
	return 1
}

// normalizeArgs accepts the Go-style single-dash spelling of every long flag
// (-package, -check, -addr, ...), which //go:generate lines and users of Go
// tools type out of habit: "-name" or "-name=value" becomes "--name..." when
// some command defines a long flag of that name. Shorthands (-o) are one
// letter, so they never match; everything after "--" is left alone.
func normalizeArgs(root *cobra.Command, args []string) []string {
	long := map[string]bool{}
	var collect func(*cobra.Command)
	collect = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
		for _, sub := range c.Commands() {
			collect(sub)
		}
	}
	collect(root)
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if long[name] {
			out[i] = "-" + a
		}
	}
	return out
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpgen",
		Short:         "Generate typed Go MCP servers from JSON tools, elicitation forms, prompts, resources and skill folders",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newGenerateCmd(stdout, stderr), newVersionCmd(stdout), newInitCmd(stdin, stdout, stderr), newDemoCmd(stdin, stdout, stderr),
		newServerJSONCmd(stdout, stderr), newPreviewCmd(stdout, stderr))
	return root
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s takes no arguments", cmd.Name())}
	}
	return nil
}
