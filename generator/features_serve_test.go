package generator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	featureswithtools "github.com/mcpgen/mcpgen/testdata/golden/features-with-tools/want"
	resourcetemplate "github.com/mcpgen/mcpgen/testdata/golden/resource-template/want"
)

// The generated packages of two golden cases, registered with real
// handlers and served over stdio: prompts/get decodes typed arguments,
// resources/read reaches the static and the template handler with typed
// params, completion/complete reaches the declared completion methods, and
// resources/list includes what a template's List method returns.

type weather struct {
	featureswithtools.UnimplementedHandler
}

func (weather) WeatherReportPrompt(_ context.Context, _ featureswithtools.WeatherReportPromptCall, in featureswithtools.WeatherReportPromptArgs) (*runtime.PromptResult, error) {
	return &runtime.PromptResult{Messages: []runtime.PromptMessage{runtime.UserMessage(runtime.Text("Report the weather in " + in.City))}}, nil
}

func (weather) CompleteWeatherReportCity(_ context.Context, req runtime.CompletionRequest) (*runtime.Completion, error) {
	return &runtime.Completion{Values: []string{req.Value + "ris"}}, nil
}

func (weather) CompleteForecastCity(_ context.Context, req runtime.CompletionRequest) (*runtime.Completion, error) {
	return &runtime.Completion{Values: []string{req.Value + "ris"}}, nil
}

func (weather) ReadCities(context.Context, featureswithtools.CitiesResourceCall) (*runtime.ResourceResult, error) {
	return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: featureswithtools.CitiesResourceURI, Text: "Paris\nOslo"}}}, nil
}

func (weather) ReadForecast(_ context.Context, _ featureswithtools.ForecastTemplateCall, uri string, in featureswithtools.ForecastParams) (*runtime.ResourceResult, error) {
	if in.City != "Paris" {
		return nil, runtime.ErrResourceNotFound
	}
	return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: "Sunny in " + in.City}}}, nil
}

type repo struct {
	resourcetemplate.UnimplementedHandler
}

func (repo) ReadRepoFile(_ context.Context, _ resourcetemplate.RepoFileTemplateCall, uri string, in resourcetemplate.RepoFileParams) (*runtime.ResourceResult, error) {
	ref := "(none)"
	if in.Ref != nil {
		ref = *in.Ref
	}
	text := fmt.Sprintf("%s/%s %s @%s lines=%v", in.Owner, in.Repo, strings.Join(in.Path, "|"), ref, in.Lines != nil)
	return &runtime.ResourceResult{Contents: []runtime.ResourceContents{{URI: uri, Text: text}}}, nil
}

func (repo) ListRepoFile(context.Context) ([]runtime.ResourceInfo, error) {
	return []runtime.ResourceInfo{{URI: "repo://mcpgen/mcpgen/blob/README.md", Name: "README.md"}}, nil
}

func (repo) CompleteRepoFileRef(_ context.Context, req runtime.CompletionRequest) (*runtime.Completion, error) {
	return &runtime.Completion{Values: []string{"main", "v" + req.Value}}, nil
}

// serve runs the requests through ServeStdio and returns the results by id.
func serve(t *testing.T, register func(*runtime.Server) error, requests ...string) map[int]json.RawMessage {
	t.Helper()
	s := runtime.NewServer(runtime.Options{Name: "features", Version: "1"})
	if err := register(s); err != nil {
		t.Fatalf("Register: %v", err)
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, r := range requests {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, i+1, r))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := s.ServeStdio(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	got := map[int]json.RawMessage{}
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.ID == nil {
			continue
		}
		if resp.Error != nil {
			got[*resp.ID] = resp.Error
		} else {
			got[*resp.ID] = resp.Result
		}
	}
	if len(got) != len(requests)+1 {
		t.Fatalf("%d responses to %d requests:\n%s", len(got), len(requests)+1, out.Bytes())
	}
	return got
}

func expect(t *testing.T, got map[int]json.RawMessage, id int, substr ...string) {
	t.Helper()
	for _, s := range substr {
		if !strings.Contains(string(got[id]), s) {
			t.Errorf("response %d: %s\nlacks %s", id, got[id], s)
		}
	}
}

func TestGeneratedFeaturesServe(t *testing.T) {
	got := serve(t, func(s *runtime.Server) error { return featureswithtools.Register(s, weather{}) },
		`"method":"prompts/list"`,
		`"method":"prompts/get","params":{"name":"weather_report","arguments":{"city":"Oslo"}}`,
		`"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"weather_report"},"argument":{"name":"city","value":"Pa"}}`,
		`"method":"resources/read","params":{"uri":"weather://cities"}`,
		`"method":"resources/read","params":{"uri":"weather://forecast/Paris"}`,
		`"method":"resources/read","params":{"uri":"weather://forecast/Atlantis"}`,
		`"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"weather://forecast/{city}"},"argument":{"name":"city","value":"Pa"}}`,
		`"method":"resources/templates/list"`,
		`"method":"prompts/get","params":{"name":"weather_report","arguments":{}}`,
	)
	expect(t, got, 0, `"prompts"`, `"resources"`, `"completions"`)
	expect(t, got, 1, `"name":"weather_report"`, `"required":true`)
	expect(t, got, 2, `"Report the weather in Oslo"`)
	expect(t, got, 3, `"values":["Paris"]`)
	expect(t, got, 4, `"Paris\nOslo"`)
	expect(t, got, 5, `"Sunny in Paris"`)
	expect(t, got, 6, `"code":-32002`)
	expect(t, got, 7, `"values":["Paris"]`)
	expect(t, got, 8, `"uriTemplate":"weather://forecast/{city}"`)
	expect(t, got, 9, `"code":-32602`, `missing required arguments`)
}

func TestGeneratedTemplateParamsServe(t *testing.T) {
	got := serve(t, func(s *runtime.Server) error { return resourcetemplate.Register(s, repo{}) },
		`"method":"resources/read","params":{"uri":"repo://mcpgen/mcpgen/blob/docs/a%20b.md?ref=dev"}`,
		`"method":"resources/read","params":{"uri":"repo://mcpgen/mcpgen/blob?lines=1-9"}`,
		`"method":"resources/list"`,
		`"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"repo://{owner}/{repo}/blob{/path*}{?ref,lines}"},"argument":{"name":"ref","value":"1"}}`,
		`"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"repo://{owner}/{repo}/blob{/path*}{?ref,lines}"},"argument":{"name":"owner","value":"m"}}`,
	)
	expect(t, got, 1, `"mcpgen/mcpgen docs|a b.md @dev lines=false"`)
	expect(t, got, 2, `"mcpgen/mcpgen  @(none) lines=true"`)
	expect(t, got, 3, `"uri":"repo://mcpgen/mcpgen/blob/README.md"`)
	expect(t, got, 4, `"values":["main","v1"]`)
	// UnimplementedHandler answers what the implementation leaves out with an error.
	expect(t, got, 5, `"code":`, `not implemented`)
}
