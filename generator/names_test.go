package generator

import "testing"

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"delete_file":    "DeleteFile",
		"userId":         "UserID",
		"user_id":        "UserID",
		"userIDs":        "UserIDs",
		"html_url":       "HTMLURL",
		"HTTPServer":     "HTTPServer",
		"getURLs":        "GetURLs",
		"git.status":     "GitStatus",
		"tool-name.v2":   "ToolNameV2",
		"USER_NAME":      "UserName",
		"3d_render":      "X3dRender",
		"type":           "Type",
		"api_key":        "APIKey",
		"already-Mixed":  "AlreadyMixed",
		"sql_Query":      "SQLQuery",
		"$":              "",
		"ip_address_v6":  "IPAddressV6",
		"oAuthToken":     "OAuthToken",
		"json_schema_20": "JSONSchema20",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLowerFirstAndSnake(t *testing.T) {
	for in, want := range map[string]string{
		"DeleteFileTool":      "deleteFileTool",
		"URLFetchTool":        "urlFetchTool",
		"ID":                  "id",
		"Func":                "func_",
		"GetUserIDDefinition": "getUserIDDefinition",
	} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"DeleteFile": "delete_file", "HTTPGet": "http_get", "GetUserID": "get_user_id", "BuildLinux": "build_linux"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEnumValueName(t *testing.T) {
	for in, want := range map[string]string{"": "Empty", "*": "Star", ">=": "GtEq", "in-progress": "InProgress", "2fa": "2fa", "C++": "C"} {
		if got := enumValueName(in); got != want {
			t.Errorf("enumValueName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOwned(t *testing.T) {
	gen := []byte(Header + "\n\npackage x\n")
	for _, tc := range []struct {
		name string
		data []byte
		want bool
	}{
		{"mcpgen_handler.go", gen, true},
		{"mcpgen_delete_file_tool.go", gen, true},
		{"mcpgen_confirm_elicitation.go", gen, true},
		{"mcpgen_delete_file_tool.go", []byte("package x\n"), false},
		{"handler.go", gen, false},
		{"mcpgen_notes.go", gen, false},
		{"mcpgen_x_tool_test.go", gen, false},
	} {
		if got := Owned(tc.name, tc.data); got != tc.want {
			t.Errorf("Owned(%s) = %v", tc.name, got)
		}
	}
}
