package generator

import (
	"path"
	"strings"
	"unicode/utf8"
)

// skillMIMETypes maps file extensions to the mimeType a skill file is
// served with. It is fixed here, not read from the machine's MIME tables,
// so that generation gives the same bytes everywhere.
var skillMIMETypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown",
	".txt": "text/plain", ".text": "text/plain",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv",
	".js": "text/javascript", ".mjs": "text/javascript", ".ts": "text/x-typescript",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".bash": "text/x-shellscript",
	".rb": "text/x-ruby", ".go": "text/x-go", ".java": "text/x-java", ".c": "text/x-c", ".h": "text/x-c",
	".sql": "application/sql", ".json": "application/json", ".xml": "application/xml",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".ico": "image/vnd.microsoft.icon",
	".wav": "audio/wav", ".mp3": "audio/mpeg",
}

// skillMIMEType is the mimeType of a skill file: text/markdown for
// SKILL.md (the specification's SHOULD), the table's type for a known
// extension, else text/plain for UTF-8 text and application/octet-stream for
// other bytes. data is nil for a dynamic file, whose unknown type is left to
// the run time ("").
func skillMIMEType(p string, data []byte, dynamic bool) string {
	if t, ok := skillMIMETypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	switch {
	case dynamic:
		return ""
	case utf8.Valid(data):
		return "text/plain"
	}
	return "application/octet-stream"
}
