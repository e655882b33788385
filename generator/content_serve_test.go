package generator_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
	contentbesideoutput "github.com/mcpgen/mcpgen/testdata/golden/content-beside-output/want"
	contentbesideoutputtest "github.com/mcpgen/mcpgen/testdata/golden/content-beside-output/want/contentbesideoutputtest"
	nilcollections "github.com/mcpgen/mcpgen/testdata/golden/nil-collections/want"
	nilcollectionstest "github.com/mcpgen/mcpgen/testdata/golden/nil-collections/want/nilcollectionstest"
)

// Two golden packages served with real handlers and called through their
// typed test clients, in both eras over HTTP and over stdio: a handler's
// own content beside its structured output (and kept when it fails), and
// nil slices and maps where the schema requires arrays and objects.

var transports = map[string][]mcptest.Option{"HTTP": nil, "stdio": {mcptest.OverStdio()}}

type photos struct {
	contentbesideoutput.UnimplementedHandler
}

var png = []byte{0x89, 'P', 'N', 'G', '\r', '\n'}

func (photos) DescribePhoto(_ context.Context, call contentbesideoutput.DescribePhotoCall, in contentbesideoutput.DescribePhotoInput) (contentbesideoutput.DescribePhotoOutput, error) {
	prio := 1.0
	call.AddContent(&runtime.ImageContent{Data: png, MIMEType: "image/png"},
		&runtime.TextContent{Text: in.Path + ": a cat on a sofa", Annotations: &runtime.Annotations{Audience: []string{"user"}, Priority: &prio}})
	return contentbesideoutput.DescribePhotoOutput{Width: 640, Height: 480, Labels: []string{"cat", "sofa"}}, nil
}

func (photos) ReadFile(_ context.Context, call contentbesideoutput.ReadFileCall, in contentbesideoutput.ReadFileInput) (contentbesideoutput.ReadFileOutput, error) {
	switch in.Path {
	case "missing.txt":
		call.AddContent(runtime.Text("looked in /srv/files"))
		return contentbesideoutput.ReadFileOutput{}, errors.New("no such file: " + in.Path)
	case "both.txt":
		call.AddContent(runtime.Text("hello"))
		call.AddOutputJSON()
		return contentbesideoutput.ReadFileOutput{Size: 5}, nil
	}
	return contentbesideoutput.ReadFileOutput{Size: 5}, nil
}

func TestContentBesideStructuredOutput(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return contentbesideoutput.Register(s, photos{}) })
	for name, opts := range transports {
		t.Run(name, func(t *testing.T) {
			contentbesideoutputtest.Run(t, newServer, func(t *testing.T, c *contentbesideoutputtest.Client) {
				ctx := t.Context()
				out, content, err := c.DescribePhotoWithContent(ctx, contentbesideoutput.DescribePhotoInput{Path: "cat.png"})
				if err != nil || out.Width != 640 || !reflect.DeepEqual(out.Labels, []string{"cat", "sofa"}) {
					t.Fatalf("describe_photo: %+v %v", out, err)
				}
				if len(content) != 2 || content[0].Type != "image" || !reflect.DeepEqual(content[0].Data, png) || content[0].MIMEType != "image/png" ||
					content[1].Type != "text" || content[1].Text != "cat.png: a cat on a sofa" || content[1].Annotations == nil ||
					!reflect.DeepEqual(content[1].Annotations.Audience, []string{"user"}) {
					t.Fatalf("describe_photo content %+v: want the image and the caption, and no JSON block", content)
				}

				_, content, err = c.ReadFileWithContent(ctx, contentbesideoutput.ReadFileInput{Path: "a.txt"})
				if err != nil || content.Text() != `{"size":5}` || len(content) != 1 {
					t.Fatalf("read_file without content of its own: %+v %v, want the output's JSON as the text block", content, err)
				}
				_, content, err = c.ReadFileWithContent(ctx, contentbesideoutput.ReadFileInput{Path: "both.txt"})
				if err != nil || len(content) != 2 || content[0].Text != "hello" || content[1].Text != `{"size":5}` {
					t.Fatalf("read_file asking for the JSON block too: %+v %v", content, err)
				}

				_, err = c.ReadFile(ctx, contentbesideoutput.ReadFileInput{Path: "missing.txt"})
				var te *mcptest.ToolError
				if !errors.As(err, &te) || len(te.Content) != 2 || te.Content[0].Text != "no such file: missing.txt" || te.Content[1].Text != "looked in /srv/files" {
					t.Fatalf("read_file of a missing file: %v, want an isError result with the error's text and the added block", err)
				}
			}, opts...)
		})
	}
}

type tagger struct {
	nilcollections.UnimplementedHandler
}

func (tagger) TagPhoto(ctx context.Context, call nilcollections.TagPhotoCall, in nilcollections.TagPhotoInput) (nilcollections.TagPhotoOutput, error) {
	picked, err := call.ElicitPickLabels(ctx, "")
	if err != nil {
		return nilcollections.TagPhotoOutput{}, err
	}
	if picked.Keep == nil || len(picked.Keep) != 0 || in.Hints == nil {
		return nilcollections.TagPhotoOutput{}, errors.New("expected the answer and the hints to arrive as []")
	}
	// Every required slice and map left nil, in the output and in the
	// structs inside it.
	return nilcollections.TagPhotoOutput{Regions: []nilcollections.TagPhotoOutputRegionsItem{{Label: "empty"}}}, nil
}

func (tagger) ListAlbums(context.Context, nilcollections.ListAlbumsCall, nilcollections.ListAlbumsInput) ([]string, error) {
	return nil, nil
}

func TestNilCollectionsGoOutEmpty(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return nilcollections.Register(s, tagger{}) })
	for name, opts := range transports {
		t.Run(name, func(t *testing.T) {
			nilcollectionstest.Run(t, newServer, func(t *testing.T, c *nilcollectionstest.Client) {
				ctx := t.Context()
				c.AnswerPickLabels(nilcollections.PickLabels{})                                              // Keep nil: the form's answer goes out as []
				out, content, err := c.TagPhotoWithContent(ctx, nilcollections.TagPhotoInput{Path: "x.png"}) // Hints nil
				if err != nil {
					t.Fatalf("tag_photo: %v", err)
				}
				if out.Labels == nil || out.Counts == nil || out.Camera.Settings == nil || out.Regions[0].Points == nil || out.Previous != nil {
					t.Fatalf("tag_photo output %+v: want empty labels, counts, settings and points, and a null previous", out)
				}
				want := `{"labels":[],"counts":{},"regions":[{"label":"empty","points":[]}],"camera":{"settings":[]},"previous":null}`
				if content.Text() != want {
					t.Fatalf("tag_photo content %s\nwant %s", content.Text(), want)
				}
				albums, err := c.ListAlbums(ctx, nilcollections.ListAlbumsInput{})
				if err != nil || albums == nil || len(albums) != 0 {
					t.Fatalf("list_albums: %#v %v, want an empty list", albums, err)
				}
			}, append(opts, mcptest.Capabilities([]byte(`{"elicitation":{}}`)))...)
		})
	}
}
