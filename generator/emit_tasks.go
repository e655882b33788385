package generator

import (
	"encoding/json"

	"github.com/dave/jennifer/jen"
)

// tasksPkg serves tools that may run as tasks (execution.taskSupport).
const tasksPkg = "github.com/mcpgen/mcpgen/ext/tasks"

// usesTasks reports whether a tool of the package may run as a task: its
// definition says execution.taskSupport "optional" or "required".
func (g *gen) usesTasks() bool {
	for _, t := range g.tools {
		var d struct {
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		}
		if json.Unmarshal(t.def.definition, &d) == nil && (d.Execution.TaskSupport == "optional" || d.Execution.TaskSupport == "required") {
			return true
		}
	}
	return false
}

// registerTasks is the part of Register that serves tasks, or nothing.
func (g *gen) registerTasks() *jen.Statement {
	if !g.usesTasks() {
		return jen.Null()
	}
	return jen.Comment("// Some of its tools may run as tasks: serve tasks (a tasks.Add before Register chooses their Options).").Line().
		If(jen.Err().Op(":=").Qual(tasksPkg, "Enable").Call(jen.Id("s")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}
