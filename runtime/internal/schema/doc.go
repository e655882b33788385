// Package schema holds the runtime's fast paths over the JSON Schemas of
// tools and forms: the allocation-free check of flat argument objects, the
// exact key shape that keeps case variants of declared names from a
// handler, and the wrapping of non-object output schemas for 2025
// clients. Compiling and wording violations is internal/schemacheck's.
package schema
