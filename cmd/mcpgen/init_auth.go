package main

import (
	"fmt"
	"net/url"
	"strings"
)

// checkIssuer checks the --auth value: an absolute http(s) issuer URL
// without query or fragment ("" is no authorization).
func checkIssuer(issuer string) error {
	if issuer == "" {
		return nil
	}
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
		strings.ContainsAny(issuer, "\"\\ ") {
		return fmt.Errorf("--auth %q: want the issuer URL of an authorization server, such as https://auth.example.com (or %s, the development issuer: go tool mcpgen-dev-issuer)", issuer, devIssuerURL)
	}
	return nil
}

// devIssuerURL is the issuer of the development issuer (go tool
// mcpgen-dev-issuer, in the oauth module) at its default address; the
// README of an --auth project gets its tokens there.
const devIssuerURL = "http://127.0.0.1:8090"
