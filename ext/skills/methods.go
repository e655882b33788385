package skills

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime"
)

// The methods of the extension. Each answers from the catalog built at
// registration; the runtime has checked the caller's scopes for the target
// that Authorize named before they run.

// listParams are the params of skills/list.
type listParams struct {
	Cursor *string `json:"cursor"`
}

// getParams are the params of skills/get and resources/directory/read.
type getParams struct {
	URI    *string `json:"uri"`
	Cursor *string `json:"cursor"`
}

// list answers skills/list: one page of the entries visible shows, in
// registration order, whole entries only. The result is private when it
// depends on the caller: some entry has scopes, or the list is filtered.
func (c *catalog) list(params json.RawMessage, filtered bool, visible func(scopes []string) bool) (json.RawMessage, *runtime.CacheHint, error) {
	var p listParams
	if err := runtime.DecodeParams(params, &p); err != nil {
		return nil, nil, err
	}
	shown := make([]json.RawMessage, 0, len(c.entries))
	cache := &c.cache
	for _, e := range c.entries {
		if len(e.scopes) > 0 {
			cache = &c.private
		}
		if !filtered || visible(e.scopes) {
			shown = append(shown, e.json)
		}
	}
	if filtered {
		cache = &c.private
	}
	page, next, err := runtime.Page("skills/list", shown, p.Cursor, c.pageSize)
	if err != nil {
		return nil, nil, err
	}
	res, merr := json.Marshal(struct {
		Skills     []json.RawMessage `json:"skills"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{page, next})
	return res, cache, merr
}

// skillFor finds the entry of a skills/get request's uri, or nil.
func (c *catalog) skillFor(params json.RawMessage) *entry {
	var p getParams
	if json.Unmarshal(params, &p) != nil || p.URI == nil {
		return nil
	}
	return c.byURI[runtime.NormalizeURI(*p.URI)]
}

// get answers skills/get: the entry of the skill whose SKILL.md has the
// requested URI; -32602 for any other URI.
func (c *catalog) get(params json.RawMessage) (json.RawMessage, *runtime.CacheHint, error) {
	var p getParams
	if err := runtime.DecodeParams(params, &p); err != nil {
		return nil, nil, err
	}
	if p.URI == nil {
		return nil, nil, runtime.NewError(runtime.CodeInvalidParams, "skills/get: params.uri is required")
	}
	e := c.byURI[runtime.NormalizeURI(*p.URI)]
	if e == nil {
		return nil, nil, runtime.NewError(runtime.CodeInvalidParams, "No skill is served at %s", *p.URI)
	}
	res, err := json.Marshal(struct {
		Skill json.RawMessage `json:"skill"`
	}{e.json})
	return res, c.hint(e.scopes), err
}

// dirFor finds the folder of a resources/directory/read request's uri, or nil.
func (c *catalog) dirFor(params json.RawMessage) *dir {
	var p getParams
	if json.Unmarshal(params, &p) != nil || p.URI == nil {
		return nil
	}
	return c.dirs[runtime.NormalizeURI(*p.URI)]
}

// readDirectory answers resources/directory/read: one page of a folder's
// direct children, files with their Resource objects and folders as
// directory resources (inode/directory); -32602 for a URI that is not a
// folder of a skill.
func (c *catalog) readDirectory(params json.RawMessage) (json.RawMessage, error) {
	var p getParams
	if err := runtime.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.URI == nil {
		return nil, runtime.NewError(runtime.CodeInvalidParams, "resources/directory/read: params.uri is required")
	}
	d := c.dirs[runtime.NormalizeURI(*p.URI)]
	if d == nil {
		return nil, runtime.NewError(runtime.CodeInvalidParams, "%s is not a directory resource", *p.URI)
	}
	defs := make([]json.RawMessage, len(d.children))
	for i, ch := range d.children {
		defs[i] = ch.def
	}
	page, next, err := runtime.Page("resources/directory/read", defs, p.Cursor, c.pageSize)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Resources  []json.RawMessage `json:"resources"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{page, next})
}
