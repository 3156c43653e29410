// Package celcheck compiles webhook matchCondition expressions exactly as
// the Kubernetes API server does when it validates a
// Validating/MutatingWebhookConfiguration, and keeps the checked AST so
// that rules can reason about what an expression does at runtime.
//
// Fidelity comes from reusing the server's own code instead of imitating
// it: the environment is the server's versioned base environment
// (environment.MustBaseEnvSet) extended with the webhook variables by the
// server's own types (plugincel.BuildRequestType…), as k8s.io/apiserver's
// admission CEL compiler (plugincel.NewCompiler) extends it for what
// kubernetes/pkg/apis/admissionregistration/validation asks for webhooks:
// the NewExpressions environment, no params, an authorizer, a bool result.
// That compiler builds eight such environments, one per combination of
// optional variables, which was a third of what matchConditions cost a
// one-file run; compile repeats the few steps of its CompileCELExpression
// on the one environment webhooks use. The only addition is a passive AST validator
// that records the checked AST; it never reports an issue, so verdicts and
// messages are the server's (TestSameAsUntouchedServerCompiler compares
// them with an untouched plugincel compiler).
package celcheck

import (
	"fmt"
	"slices"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

// Supported Kubernetes minor versions (major 1). matchConditions are GA
// since 1.30; 1.37 is the release whose code this package links, so newer
// servers may know libraries this build does not.
const (
	MinKubeMinor = 30
	MaxKubeMinor = 37
)

// WebhookVariables are the optional variables webhook matchConditions are
// compiled with (kubernetes validation.go validateMatchConditionsExpression
// with allowParamsInMatchConditions false for both webhook kinds).
var WebhookVariables = plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}

// Result is the outcome of compiling one expression.
type Result struct {
	// Expression is the text that was compiled.
	Expression string
	// AST is the checked AST; nil when Err is set.
	AST *celast.AST
	// OutputType is the type the checker inferred; nil when Err is set.
	OutputType *cel.Type
	// Err is the server's error, nil when the server accepts the expression.
	Err *apiservercel.Error
}

// OK reports whether the API server accepts the expression.
func (r Result) OK() bool { return r.Err == nil }

// FieldError is the error the API server returns for this result at path
// (webhooks[i].matchConditions[j].expression), exactly as
// validation.go convertCELErrorToValidationError builds it; nil if OK.
func (r Result) FieldError(path *field.Path) *field.Error {
	if r.Err == nil {
		return nil
	}
	switch r.Err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(path, r.Err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(path, r.Expression, r.Err.Detail)
	default:
		return field.InternalError(path, r.Err)
	}
}

// Compiler compiles matchCondition expressions for one Kubernetes version.
// It is safe for concurrent use; each distinct expression is compiled once.
type Compiler struct {
	kubeMinor int

	// env is the webhook environment, with the capture validator. It is
	// built on another goroutine, and ready when envReady is closed (with
	// envPanic set if building it panicked).
	env      *cel.Env
	envReady chan struct{}
	envPanic any

	// compileMu serializes compiles so that the AST the capture validator
	// sees belongs to the call that holds it.
	compileMu sync.Mutex
	capture   *astCapture

	cache  sync.Map // expression text -> *cacheEntry
	parses sync.Map // expression text -> *parsedEntry, for CheckTyped
}

type cacheEntry struct {
	once sync.Once
	res  Result
}

var compilers [MaxKubeMinor + 1]struct {
	once sync.Once
	c    *Compiler
}

// For returns the compiler that behaves like an API server of version
// 1.minor. The environment is built on first use and then shared.
func For(minor int) (*Compiler, error) {
	if minor < MinKubeMinor || minor > MaxKubeMinor {
		return nil, fmt.Errorf("matchConditions: Kubernetes 1.%d is not supported (supported: 1.%d to 1.%d)", minor, MinKubeMinor, MaxKubeMinor)
	}
	slot := &compilers[minor]
	slot.once.Do(func() { slot.c = newCompiler(minor) })
	return slot.c, nil
}

// CompatibilityVersion is the CEL library set a 1.minor server compiles new
// expressions with: the server's minimum compatibility version, which is
// its binary version minus one minor (component-base compatibility
// defaults; webhook-facts §A.8).
func CompatibilityVersion(minor int) *version.Version {
	return version.MajorMinor(1, uint(minor-1))
}

func newCompiler(minor int) *Compiler {
	c := &Compiler{kubeMinor: minor, capture: &astCapture{}, envReady: make(chan struct{})}
	// Building the environment takes a few milliseconds, and so does the
	// first parse of a process (the parser's prediction tables start
	// empty): compile warms the parser with its expression while this
	// runs on another core.
	go func() {
		defer close(c.envReady)
		defer func() { c.envPanic = recover() }()
		env, err := webhookEnv(minor, cel.DynType, nil, cel.ASTValidators(c.capture))
		if err != nil {
			// The base environment is static; failing to extend it is a bug
			// in this package, not in the input.
			panic(fmt.Sprintf("celcheck: extending the base CEL environment: %v", err))
		}
		c.env = env
	}()
	return c
}

// environment waits for the webhook environment.
func (c *Compiler) environment() *cel.Env {
	<-c.envReady
	if c.envPanic != nil {
		panic(c.envPanic)
	}
	return c.env
}

// warmParser parses expressions only to fill the prediction tables that
// every CEL parser of the process shares; its results are dropped.
var warmParser = sync.OnceValue(func() *parser.Parser {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.EnableOptionalSyntax(true))
	if err != nil {
		return nil
	}
	return p
})

// webhookEnv is the NewExpressions environment a 1.minor server compiles
// webhook matchConditions in (plugincel createEnvForOpts with an
// authorizer and no params), with object and oldObject of type object
// (dyn, as the server declares them, or a schema's type with its
// declarations), and extra options.
//
// createEnvForOpts extends the base EnvSet, which builds a
// StoredExpressions environment beside it, as costly and never used here;
// this extends the base's NewExpressions environment the way
// EnvSet.Extend (environment.go filterAndBuildOpts) does: options
// introduced in 1.0 always apply, the declared types come through a
// DeclTypeProvider that recognizes keywords as field names from 1.31, and
// everything is one library with the program options of StrictCostOpt.
func webhookEnv(minor int, object *cel.Type, objectDecl *apiservercel.DeclType, extra ...cel.EnvOption) (*cel.Env, error) {
	requestType := plugincel.BuildRequestType()
	namespaceType := plugincel.BuildNamespaceType()
	opts := slices.Concat(extra, []cel.EnvOption{
		cel.Variable(plugincel.ObjectVarName, object),
		cel.Variable(plugincel.OldObjectVarName, object),
		cel.Variable(plugincel.NamespaceVarName, namespaceType.CelType()),
		cel.Variable(plugincel.RequestVarName, requestType.CelType()),
		cel.Variable(plugincel.AuthorizerVarName, library.AuthorizerType),
		cel.Variable(plugincel.RequestResourceAuthorizerVarName, library.ResourceCheckType),
	})
	decls := []*apiservercel.DeclType{namespaceType, requestType}
	if objectDecl != nil {
		decls = append(decls, objectDecl)
	}
	compat := CompatibilityVersion(minor)
	base := environment.MustBaseEnvSet(compat).NewExpressionsEnv()
	provider := apiservercel.NewDeclTypeProvider(decls...)
	if compat.AtLeast(version.MajorMinor(1, 31)) {
		provider.SetRecognizeKeywordAsFieldName(true)
	}
	typeOpts, err := provider.EnvOptions(base.CELTypeProvider())
	if err != nil {
		return nil, err
	}
	return base.Extend(cel.Lib(&envLibrary{
		envOpts:  append(opts, typeOpts...),
		progOpts: environment.StrictCostOpt.ProgramOptions,
	}))
}

// envLibrary is a set of options applied as one library, as EnvSet.Extend
// applies them.
type envLibrary struct {
	envOpts  []cel.EnvOption
	progOpts []cel.ProgramOption
}

func (l *envLibrary) CompileOptions() []cel.EnvOption     { return l.envOpts }
func (l *envLibrary) ProgramOptions() []cel.ProgramOption { return l.progOpts }

// KubeMinor is the Kubernetes minor version this compiler behaves like.
func (c *Compiler) KubeMinor() int { return c.kubeMinor }

// Compile compiles expr (verbatim: callers trim it as the server does)
// and caches the result for the life of the process.
func (c *Compiler) Compile(expr string) Result {
	v, _ := c.cache.LoadOrStore(expr, &cacheEntry{})
	e := v.(*cacheEntry)
	e.once.Do(func() { e.res = c.compile(expr) })
	return e.res
}

func (c *Compiler) compile(expr string) (res Result) {
	res.Expression = expr
	c.compileMu.Lock()
	defer c.compileMu.Unlock()
	defer func() {
		// The server recovers panics per request; a linter must not crash
		// on any input either.
		if p := recover(); p != nil {
			res.AST, res.OutputType = nil, nil
			res.Err = &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: fmt.Sprintf("CEL compiler panicked: %v", p)}
		}
	}()
	select {
	case <-c.envReady:
	default:
		if p := warmParser(); p != nil {
			_, _ = p.Parse(common.NewTextSource(expr))
		}
	}
	env := c.environment()
	c.capture.ast = nil
	out := compileCondition(env, &matchconditions.MatchCondition{Expression: expr}, func(parsed *cel.Ast) {
		c.keepParse(expr, parsed)
	})
	if out.Error != nil {
		res.Err = out.Error
		return res
	}
	res.AST, res.OutputType = c.capture.ast, out.OutputType
	c.capture.ast = nil
	if res.AST == nil {
		res.Err = &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: "checked AST was not captured"}
	}
	return res
}

// compileCondition is plugincel's CompileCELExpression on env: the same
// steps, errors and messages. It gives parsed the parse, before the check
// rewrites it.
func compileCondition(env *cel.Env, accessor plugincel.ExpressionAccessor, parsed func(*cel.Ast)) plugincel.CompilationResult {
	resultError := func(detail string, errType apiservercel.ErrorType, cause error) plugincel.CompilationResult {
		return plugincel.CompilationResult{
			Error:              &apiservercel.Error{Type: errType, Detail: detail, Cause: cause},
			ExpressionAccessor: accessor,
		}
	}
	ast, issues := compileAST(env, accessor.GetExpression(), parsed)
	if issues != nil {
		return resultError("compilation failed: "+issues.String(), apiservercel.ErrorTypeInvalid, apiservercel.NewCompilationError(issues))
	}
	returnTypes := accessor.ReturnTypes()
	if !slices.ContainsFunc(returnTypes, func(t *cel.Type) bool {
		return ast.OutputType().IsExactType(t) || cel.AnyType.IsExactType(t)
	}) {
		var reason string
		if len(returnTypes) == 1 {
			reason = fmt.Sprintf("must evaluate to %v but got %v", returnTypes[0].String(), ast.OutputType().String())
		} else {
			reason = fmt.Sprintf("must evaluate to one of %v but got %v", returnTypes, ast.OutputType().String())
		}
		return resultError(reason, apiservercel.ErrorTypeInvalid, nil)
	}
	if _, err := cel.AstToCheckedExpr(ast); err != nil {
		return resultError("unexpected compilation error: "+err.Error(), apiservercel.ErrorTypeInternal, nil)
	}
	prog, err := env.Program(ast, cel.InterruptCheckFrequency(celconfig.CheckFrequency))
	if err != nil {
		return resultError("program instantiation failed: "+err.Error(), apiservercel.ErrorTypeInternal, nil)
	}
	return plugincel.CompilationResult{Program: prog, ExpressionAccessor: accessor, OutputType: ast.OutputType()}
}

// compileAST is env.Compile(expr), which is Parse, then Check unless the
// parse failed (cel-go env.go CompileSource), with the parse shown to
// parsed in between.
func compileAST(env *cel.Env, expr string, parsed func(*cel.Ast)) (*cel.Ast, *cel.Issues) {
	ast, iss := env.Parse(expr)
	if iss.Err() != nil {
		return nil, iss
	}
	parsed(ast)
	checked, iss := env.Check(ast)
	if iss.Err() != nil {
		return nil, iss
	}
	return checked, iss
}

// astCapture records the checked AST of the compilation in progress. It is
// only touched while Compiler.compileMu is held.
type astCapture struct{ ast *celast.AST }

func (*astCapture) Name() string { return "webhooklint.capture-checked-ast" }

func (a *astCapture) Validate(_ *cel.Env, _ cel.ValidatorConfig, checked *celast.AST, _ *cel.Issues) {
	a.ast = checked
}
