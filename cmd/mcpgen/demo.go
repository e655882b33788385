package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"
)

func newDemoCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Scaffold, generate, build and start the example server, and print how to call it",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("demo: not built yet")
		},
	}
}
