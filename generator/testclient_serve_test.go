package generator_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/mcptest"
	"github.com/mcpgen/mcpgen/runtime"
	featureswithtools "github.com/mcpgen/mcpgen/testdata/golden/features-with-tools/want"
	featureswithtoolstest "github.com/mcpgen/mcpgen/testdata/golden/features-with-tools/want/featureswithtoolstest"
	multielicit "github.com/mcpgen/mcpgen/testdata/golden/multi-elicit/want"
	multielicittest "github.com/mcpgen/mcpgen/testdata/golden/multi-elicit/want/multielicittest"
	outputroots "github.com/mcpgen/mcpgen/testdata/golden/output-roots/want"
	outputrootstest "github.com/mcpgen/mcpgen/testdata/golden/output-roots/want/outputrootstest"
	resourcetemplate "github.com/mcpgen/mcpgen/testdata/golden/resource-template/want"
	resourcetemplatetest "github.com/mcpgen/mcpgen/testdata/golden/resource-template/want/resourcetemplatetest"
)

// The typed test clients of golden cases, against their packages served
// with real handlers, in every era: typed arguments, outputs and answers
// survive the trip both ways.

func serverWith(register func(*runtime.Server) error) func(t *testing.T) *runtime.Server {
	return func(t *testing.T) *runtime.Server {
		s := runtime.NewServer(runtime.Options{Name: "golden", Version: "1"})
		if err := register(s); err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestTestClientFeatures(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return featureswithtools.Register(s, weather{}) })
	featureswithtoolstest.Run(t, newServer, func(t *testing.T, c *featureswithtoolstest.Client) {
		ctx := t.Context()
		p, err := c.WeatherReportPrompt(ctx, featureswithtools.WeatherReportPromptArgs{City: "Oslo"})
		if err != nil || p.Text() != "Report the weather in Oslo" {
			t.Errorf("prompt: %v %+v", err, p)
		}
		done, err := c.CompleteWeatherReportCity(ctx, "Pa", nil)
		if err != nil || !reflect.DeepEqual(done.Values, []string{"Paris"}) {
			t.Errorf("prompt completion: %v %+v", err, done)
		}
		r, err := c.ReadCities(ctx)
		if err != nil || r.Text() != "Paris\nOslo" {
			t.Errorf("resource: %v %+v", err, r)
		}
		r, err = c.ReadForecast(ctx, featureswithtools.ForecastParams{City: "Paris"})
		if err != nil || r.Text() != "Sunny in Paris" {
			t.Errorf("template: %v %+v", err, r)
		}
		var rpc *runtime.Error
		if _, err := c.ReadForecast(ctx, featureswithtools.ForecastParams{City: "Rome"}); !errors.As(err, &rpc) {
			t.Errorf("a template read of nothing: %v", err)
		}
		done, err = c.CompleteForecastCity(ctx, "Pa", nil)
		if err != nil || !reflect.DeepEqual(done.Values, []string{"Paris"}) {
			t.Errorf("template completion: %v %+v", err, done)
		}
	})
}

// Template variables go into the URI the way the runtime's matcher takes
// them back out: lists, optional query variables, characters to escape.
func TestTestClientTemplateVariables(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return resourcetemplate.Register(s, repo{}) })
	ref := "feature/x y"
	resourcetemplatetest.Run(t, newServer, func(t *testing.T, c *resourcetemplatetest.Client) {
		for in, want := range map[*resourcetemplate.RepoFileParams]string{
			{Owner: "mcpgen", Repo: "mcpgen", Path: []string{"cmd", "main.go"}}:             "mcpgen/mcpgen cmd|main.go @(none) lines=false",
			{Owner: "a b", Repo: "c", Path: []string{"d%e"}, Ref: &ref, Lines: new(string)}: "a b/c d%e @feature/x y lines=true",
		} {
			r, err := c.ReadRepoFile(t.Context(), *in)
			if err != nil || r.Text() != want {
				t.Errorf("%+v: %v %q, want %q", *in, err, r.Text(), want)
			}
		}
	})
}

type deployer struct {
	multielicit.UnimplementedHandler
}

func (deployer) Deploy(ctx context.Context, call multielicit.DeployCall, in multielicit.DeployInput) (multielicit.DeployOutput, error) {
	a, err := call.ElicitApprove(ctx, "")
	if err != nil {
		return multielicit.DeployOutput{}, err
	}
	if !a.Approved || a.Ticket == nil || a.When == nil {
		return multielicit.DeployOutput{}, fmt.Errorf("not approved: %+v", a)
	}
	if err := call.ElicitSsoLogin(ctx, "", "https://sso.example.com"); err != nil {
		return multielicit.DeployOutput{}, err
	}
	return multielicit.DeployOutput{URL: fmt.Sprintf("https://%s.example.com/%s/%s", in.Env, *a.Ticket, a.When.Format("2006"))}, nil
}

// Forms are answered with their generated structs, URL elicitations by
// accepting, and declines come back as the handler reports them.
func TestTestClientAnswers(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return multielicit.Register(s, deployer{}) })
	ticket, when := "https://tickets.example.com/1", time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	multielicittest.Run(t, newServer, func(t *testing.T, c *multielicittest.Client) {
		c.AnswerApprove(multielicit.Approve{Approved: true, Ticket: &ticket, When: &when})
		c.AcceptSsoLogin()
		out, err := c.Deploy(t.Context(), multielicit.DeployInput{Env: multielicit.DeployInputEnvProd})
		if err != nil || out.URL != "https://prod.example.com/https://tickets.example.com/1/2026" {
			t.Errorf("deploy: %v %+v", err, out)
		}
		c.DeclineSsoLogin()
		_, err = c.Deploy(t.Context(), multielicit.DeployInput{Env: multielicit.DeployInputEnvStaging})
		var te *mcptest.ToolError
		if !errors.As(err, &te) || te.Tool != "deploy" {
			t.Errorf("deploy with the login declined: %v", err)
		}
	})
}

type counter struct {
	outputroots.UnimplementedHandler
}

func (counter) CountLines(_ context.Context, _ outputroots.CountLinesCall, in outputroots.CountLinesInput) (int64, error) {
	return int64(len(in.Path)), nil
}

func (counter) Lookup(_ context.Context, _ outputroots.LookupCall, in outputroots.LookupInput) (*string, error) {
	return nil, nil
}

func (counter) Resolve(_ context.Context, _ outputroots.ResolveCall, in outputroots.ResolveInput) (outputroots.ResolveOutput, error) {
	return outputroots.ResolveOutput{Array: []string{"a", "b"}}, nil
}

// Output whose schema root is not an object comes back typed in every era,
// though sessions get it wrapped as {"result": value}.
func TestTestClientValueOutputs(t *testing.T) {
	newServer := serverWith(func(s *runtime.Server) error { return outputroots.Register(s, counter{}) })
	outputrootstest.Run(t, newServer, func(t *testing.T, c *outputrootstest.Client) {
		ctx := t.Context()
		if n, err := c.CountLines(ctx, outputroots.CountLinesInput{Path: "abcd"}); err != nil || n != 4 {
			t.Errorf("count_lines: %v %d", err, n)
		}
		if s, err := c.Lookup(ctx, outputroots.LookupInput{}); err != nil || s != nil {
			t.Errorf("lookup: %v %v", err, s)
		}
		if r, err := c.Resolve(ctx, outputroots.ResolveInput{}); err != nil || !reflect.DeepEqual(r.Array, []string{"a", "b"}) {
			t.Errorf("resolve: %v %+v", err, r)
		}
	})
}
