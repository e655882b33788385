package runtime

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// Content is one block of a tool result: *TextContent, *ImageContent,
// *AudioContent, *ResourceLink or *EmbeddedResource.
type Content interface {
	contentType() string
}

// Annotations are the optional audience/priority hints of a content block.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// TextContent is a text block.
type TextContent struct {
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// ImageContent is an image block; Data holds the raw bytes (sent base64).
type ImageContent struct {
	Data        []byte       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// AudioContent is an audio block; Data holds the raw bytes (sent base64).
type AudioContent struct {
	Data        []byte       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
}

// ResourceLink points at a resource the client may read: the resource as
// resources/list shows it, as a content block.
type ResourceLink ResourceInfo

// Icon is an icon a client may show for a resource (2025-11-25 and later).
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// ResourceContents is the body of a resource (resources/read, embedded
// resources): Text or Blob.
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     []byte          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    ResourceContents `json:"resource"`
	Annotations *Annotations     `json:"annotations,omitempty"`
}

func (*TextContent) contentType() string      { return "text" }
func (*ImageContent) contentType() string     { return "image" }
func (*AudioContent) contentType() string     { return "audio" }
func (*ResourceLink) contentType() string     { return "resource_link" }
func (*EmbeddedResource) contentType() string { return "resource" }

// Text is shorthand for a text block.
func Text(s string) *TextContent { return &TextContent{Text: s} }

// The MarshalJSON methods add the "type" discriminator (first, as the
// specification's examples write it); []byte fields are base64, as
// encoding/json writes them.
func (c *TextContent) MarshalJSON() ([]byte, error) {
	type plain TextContent
	return typed(c, (*plain)(c))
}
func (c *ImageContent) MarshalJSON() ([]byte, error) {
	type plain ImageContent
	return typed(c, (*plain)(c))
}
func (c *AudioContent) MarshalJSON() ([]byte, error) {
	type plain AudioContent
	return typed(c, (*plain)(c))
}
func (c *ResourceLink) MarshalJSON() ([]byte, error) {
	type plain ResourceLink
	return typed(c, (*plain)(c))
}
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) {
	type plain EmbeddedResource
	return typed(c, (*plain)(c))
}

// typed encodes fields (c without its methods) with c's type first.
func typed(c Content, fields any) ([]byte, error) {
	b, err := json.Marshal(fields)
	if err != nil || len(b) < 2 {
		return b, err
	}
	out := append([]byte(`{"type":`), strconv.Quote(c.contentType())...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// MarshalJSON sends Blob as base64 and omits whichever of text/blob is unset.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	out := struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType,omitempty"`
		Text     *string         `json:"text,omitempty"`
		Blob     *string         `json:"blob,omitempty"`
		Meta     json.RawMessage `json:"_meta,omitempty"`
	}{URI: r.URI, MIMEType: r.MIMEType, Meta: r.Meta}
	if r.Blob != nil {
		b := base64.StdEncoding.EncodeToString(r.Blob)
		out.Blob = &b
	} else {
		t := r.Text
		out.Text = &t
	}
	return json.Marshal(out)
}

// ResourceInfo is a resource as resources/list shows it, for resources
// listed at run time.
type ResourceInfo struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}
