package resourceuri

import "testing"

func TestNormalizeURI(t *testing.T) {
	for in, want := range map[string]string{
		"notes://secret":             "notes://secret",
		"notes://%73ecret":           "notes://secret",
		"notes://secre%74":           "notes://secret",
		"NOTES://Secret":             "notes://secret", // the host is lowercased
		"notes://h/Path%2fX":         "notes://h/Path%2FX",
		"notes://h/a%2Db%7e%5f":      "notes://h/a-b~_",
		"file:///Tmp/%41":            "file:///Tmp/A",
		"HTTP://User@Host.Example:8": "http://User@host.example:8",
		"urn:ISBN:%30":               "urn:ISBN:0",
		"docs://x/%zz":               "docs://x/%zz",
		"docs://x/%4":                "docs://x/%4",
		"docs://x/%":                 "docs://x/%",
		"no-scheme/%41":              "no-scheme/A",
		"ui://Widget/%3cp%3e":        "ui://widget/%3Cp%3E",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Normalize("test://notes/7") }); n != 0 {
		t.Errorf("a normal URI costs %v allocations, want 0", n)
	}
}
