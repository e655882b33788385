package main

import (
	"io"
	"reflect"
	"testing"
)

func TestNormalizeArgsAcceptsGoStyleLongFlags(t *testing.T) {
	root := newRootCmd(nil, io.Discard, io.Discard)
	for _, tc := range []struct{ in, want []string }{
		{[]string{"generate", "-package", "x", "-check", "."}, []string{"generate", "--package", "x", "--check", "."}},
		{[]string{"generate", "-out=gen", "-o", "dir"}, []string{"generate", "--out=gen", "-o", "dir"}},
		{[]string{"demo", "-addr", "127.0.0.1:8080", "-exit"}, []string{"demo", "--addr", "127.0.0.1:8080", "--exit"}},
		{[]string{"generate", "-nosuchflag"}, []string{"generate", "-nosuchflag"}},
		{[]string{"generate", "--", "-check"}, []string{"generate", "--", "-check"}},
	} {
		if got := normalizeArgs(root, tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
