package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpgen/mcpgen/ext/servercard"
)

// serverJSONFlags are server-json's flags.
type serverJSONFlags struct {
	output, name, description, title, version, website, repository, subfolder string
	remotes, packages, packageArgs                                            []string
	packageVersion, sha256                                                    string
	check                                                                     bool
}

func newServerJSONCmd(stdout, stderr io.Writer) *cobra.Command {
	var f serverJSONFlags
	cmd := &cobra.Command{
		Use:   "server-json [dir]",
		Short: "Write the MCP registry's server.json for the project in dir, checked against the registry's schema",
		Long: `server-json writes dir/server.json (default dir "."), the document the MCP
registry lists a server by (schema 2025-12-11), and checks it against the
registry's schema and rules before writing: when something is wrong it says
where (the JSON pointer, and the flag it came from) and writes nothing.

What it knows of the project fills in the rest:
  name         from the module path and serverInfo.name in main.go:
               github.com/OWNER/... gives io.github.OWNER/NAME, the namespace
               the registry grants a GitHub sign-in; another host its
               reverse DNS (example.com/x gives com.example/NAME)
  version      the Version of main.go's runtime.Options
  title        its Title
  repository   the GitHub or GitLab repository of the module path

An existing server.json is updated, not replaced: flags override its
members, the version follows main.go, and members mcpgen does not write
(icons, _meta, a package's environment variables) are kept. --remote and
--package replace the remotes and packages when given.

  --remote URL               a Streamable HTTP endpoint others reach (https)
  --package TYPE:IDENTIFIER  a package a client runs over stdio, TYPE one of
                             oci (ghcr.io/OWNER/IMAGE:TAG), mcpb (the https
                             URL of a release file; needs --sha256), npm,
                             pypi, nuget (needs a version: --package-version,
                             default the server's)

With --check it validates the existing file and writes nothing.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError{fmt.Errorf("server-json takes at most one folder, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if !cmd.Flags().Changed("package-arg") {
				f.packageArgs = []string{"-stdio"} // the scaffold's main.go serves stdio with -stdio
			}
			return runServerJSON(dir, f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "`file` to write (default dir/server.json; - for stdout)")
	fl.StringVar(&f.name, "name", "", "registry `name`, reverse-DNS namespace and a name: io.github.OWNER/NAME")
	fl.StringVar(&f.description, "description", "", "what the server does, 1 to 100 characters")
	fl.StringVar(&f.title, "title", "", "display name")
	fl.StringVar(&f.version, "version", "", "the server's `version` (default main.go's runtime.Options.Version)")
	fl.StringVar(&f.website, "website", "", "homepage or documentation `URL` (https)")
	fl.StringVar(&f.repository, "repository", "", "source repository `URL` on GitHub or GitLab")
	fl.StringVar(&f.subfolder, "subfolder", "", "the server's folder in the repository")
	fl.StringArrayVar(&f.remotes, "remote", nil, "Streamable HTTP endpoint `URL` (repeatable)")
	fl.StringArrayVar(&f.packages, "package", nil, "`TYPE:IDENTIFIER` of a package (repeatable)")
	fl.StringArrayVar(&f.packageArgs, "package-arg", nil, "`argument` the packaged server is started with (repeatable; default -stdio)")
	fl.StringVar(&f.packageVersion, "package-version", "", "`version` of npm, pypi and nuget packages (default the server's)")
	fl.StringVar(&f.sha256, "sha256", "", "SHA-256 (`hex`) of an mcpb package's file")
	fl.BoolVar(&f.check, "check", false, "validate the existing server.json and write nothing")
	return cmd
}

// runServerJSON is server-json.
func runServerJSON(dir string, f serverJSONFlags, stdout, stderr io.Writer) error {
	out := firstOf(f.output, filepath.Join(dir, "server.json"))
	if f.check {
		return checkServerJSON(out, stdout, stderr)
	}
	doc := map[string]json.RawMessage{}
	if out != "-" {
		old, err := os.ReadFile(out)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case json.Unmarshal(old, &doc) != nil || doc == nil:
			return fmt.Errorf("%s is not a JSON object; fix or remove it (nothing was written)", out)
		}
	}
	facts, err := readProject(dir)
	if err != nil {
		return err
	}
	from := map[string]string{} // member: the flag it came from, for error messages
	set := func(member string, v any, flag string) {
		raw, _ := json.Marshal(v)
		doc[member] = raw
		if flag != "" {
			from[member] = flag
		}
	}
	str := func(member string) string {
		var s string
		_ = json.Unmarshal(doc[member], &s)
		return s
	}
	if old := str("$schema"); old != "" && old != registrySchemaURL {
		fmt.Fprintf(stderr, "mcpgen server-json: %s: $schema was %s; writing %s\n", out, old, registrySchemaURL)
	}
	set("$schema", registrySchemaURL, "")

	switch {
	case f.name != "":
		set("name", f.name, "--name")
	case str("name") == "":
		name, err := registryName(facts.importPath, facts.name)
		if err != nil {
			return usageError{err}
		}
		set("name", name, "")
	}
	switch {
	case f.description != "":
		set("description", f.description, "--description")
	case str("description") == "":
		return usageError{errors.New("--description is required: say what the server does, in 1 to 100 characters")}
	}
	if f.title != "" {
		set("title", f.title, "--title")
	} else if str("title") == "" && facts.title != "" {
		set("title", facts.title, "")
	}
	switch {
	case f.version != "":
		set("version", f.version, "--version")
	case facts.version != "":
		set("version", facts.version, "")
	case str("version") == "":
		return usageError{fmt.Errorf("--version is required: no runtime.Options literal with a Version was found in %s's package main", dir)}
	}
	if f.website != "" {
		set("websiteUrl", f.website, "--website")
	}
	if err := setRepository(doc, f, facts, set); err != nil {
		return err
	}
	if len(f.remotes) > 0 {
		var remotes []map[string]string
		for _, r := range f.remotes {
			remotes = append(remotes, map[string]string{"type": "streamable-http", "url": r})
		}
		set("remotes", remotes, "--remote")
	}
	if len(f.packages) > 0 {
		pkgs, err := packagesOf(f, str("version"))
		if err != nil {
			return err
		}
		set("packages", pkgs, "--package")
	}
	if _, ok := doc["remotes"]; !ok {
		if _, ok := doc["packages"]; !ok {
			fmt.Fprintln(stderr, "mcpgen server-json: no --remote and no --package: clients will not know how to reach the server")
		}
	}

	body := marshalServerJSON(doc)
	issues, err := validateServerJSON(body)
	if err != nil {
		return err
	}
	if len(issues) > 0 {
		reportIssues(stderr, out, issues, from)
		fmt.Fprintf(stderr, "mcpgen server-json: nothing was written\n")
		return errReported
	}
	if out == "-" {
		_, err := stdout.Write(body)
		return err
	}
	if err := write(filepath.Dir(out), map[string][]byte{filepath.Base(out): body}, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%s, schema 2025-12-11)\n", out, str("name"))
	for _, hint := range publishHints(doc, str("name")) {
		fmt.Fprintln(stdout, hint)
	}
	return nil
}

// setRepository fills repository: --repository, else what the file has,
// else the module path's.
func setRepository(doc map[string]json.RawMessage, f serverJSONFlags, facts projectFacts, set func(string, any, string)) error {
	var repo *servercard.Repository
	if raw, ok := doc["repository"]; ok {
		repo = &servercard.Repository{}
		_ = json.Unmarshal(raw, repo) // a wrong shape is the schema's to report
	}
	flag := ""
	switch {
	case f.repository != "":
		u, err := url.Parse(f.repository)
		if err != nil || u.Host == "" {
			return usageError{fmt.Errorf("--repository %q is not an absolute URL", f.repository)}
		}
		source := map[string]string{"github.com": "github", "www.github.com": "github", "gitlab.com": "gitlab", "www.gitlab.com": "gitlab"}[u.Host]
		if source == "" {
			return usageError{fmt.Errorf("--repository %q: the registry checks GitHub and GitLab repositories", f.repository)}
		}
		repo = &servercard.Repository{URL: strings.TrimSuffix(f.repository, ".git"), Source: source}
		flag = "--repository"
	case repo == nil:
		if repo = repositoryOf(facts.importPath); repo == nil {
			if f.subfolder != "" {
				return usageError{errors.New("--subfolder needs a repository: pass --repository")}
			}
			return nil
		}
	}
	if f.subfolder != "" {
		repo.Subfolder = f.subfolder
		flag = firstOf(flag, "--subfolder")
	}
	set("repository", repo, flag)
	return nil
}

// packagesOf turns the --package flags into the registry's packages.
func packagesOf(f serverJSONFlags, serverVersion string) ([]map[string]any, error) {
	var pkgs []map[string]any
	var args []map[string]string
	for _, a := range f.packageArgs {
		if a != "" {
			args = append(args, map[string]string{"type": "positional", "value": a})
		}
	}
	for _, spec := range f.packages {
		kind, id, ok := strings.Cut(spec, ":")
		if !ok || id == "" {
			return nil, usageError{fmt.Errorf("--package %q: write TYPE:IDENTIFIER, e.g. oci:ghcr.io/OWNER/IMAGE:1.0.0", spec)}
		}
		p := map[string]any{"registryType": kind, "identifier": id, "transport": map[string]string{"type": "stdio"}}
		switch kind {
		case "oci":
		case "mcpb":
			if f.sha256 == "" {
				return nil, usageError{fmt.Errorf("--package %q: an mcpb package needs --sha256, the SHA-256 of its file (sha256sum FILE)", spec)}
			}
			p["fileSha256"] = strings.ToLower(f.sha256)
		case "npm", "pypi", "nuget":
			p["version"] = firstOf(f.packageVersion, serverVersion)
		default:
			return nil, usageError{fmt.Errorf("--package %q: the type is one of oci, mcpb, npm, pypi, nuget", spec)}
		}
		if len(args) > 0 {
			p["packageArguments"] = args
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// serverJSONOrder is the order server.json's members are written in; others
// follow, sorted.
var serverJSONOrder = []string{"$schema", "name", "description", "title", "version", "websiteUrl", "repository", "icons", "remotes", "packages", "_meta"}

// marshalServerJSON writes doc with two-space indentation, its members in
// serverJSONOrder.
func marshalServerJSON(doc map[string]json.RawMessage) []byte {
	keys := slices.Collect(maps.Keys(doc))
	slices.SortFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(serverJSONOrder, a), slices.Index(serverJSONOrder, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range keys {
		var v bytes.Buffer
		_ = json.Indent(&v, doc[k], "  ", "  ")
		name, _ := json.Marshal(k)
		fmt.Fprintf(&b, "  %s: %s", name, v.Bytes())
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// reportIssues prints one line per issue, FILE: POINTER: message, naming
// the flag a member came from.
func reportIssues(w io.Writer, file string, issues []serverJSONIssue, from map[string]string) {
	for _, is := range issues {
		line := file + ": " + is.String()
		member, _, _ := strings.Cut(strings.TrimPrefix(is.at, "/"), "/")
		if flag := from[member]; flag != "" {
			line += " (from " + flag + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// checkServerJSON is server-json --check.
func checkServerJSON(file string, stdout, stderr io.Writer) error {
	body, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !json.Valid(body) {
		var v any
		return fmt.Errorf("%s: not JSON: %v", file, json.Unmarshal(body, &v))
	}
	issues, err := validateServerJSON(body)
	if err != nil {
		return err
	}
	if len(issues) > 0 {
		reportIssues(stderr, file, issues, nil)
		return errReported
	}
	fmt.Fprintf(stdout, "%s: a valid server.json (schema 2025-12-11)\n", file)
	return nil
}

// publishHints say what the registry checks at publishing that a file
// cannot: that the publisher owns the packages.
func publishHints(doc map[string]json.RawMessage, name string) []string {
	var pkgs []struct {
		RegistryType string `json:"registryType"`
	}
	_ = json.Unmarshal(doc["packages"], &pkgs)
	var hints []string
	for _, p := range pkgs {
		switch p.RegistryType {
		case "oci":
			hints = append(hints, fmt.Sprintf("the registry checks the image's label: LABEL io.modelcontextprotocol.server.name=%q in the Dockerfile", name))
		case "npm":
			hints = append(hints, fmt.Sprintf("the registry checks package.json: \"mcpName\": %q", name))
		case "pypi", "nuget":
			hints = append(hints, fmt.Sprintf("the registry checks the package's README for: mcp-name: %s", name))
		}
	}
	return slices.Compact(hints)
}
