package simvet

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// fusedArchs is the -fused-arch flag: the targets compiled to find the
// fused multiply-adds. arm64 and riscv64 by default, the two CI replays
// recordings on; ppc64le and s390x fused a subset of arm64's lines in
// the fixtures (not a - b*c), and compiling a module's dependencies for
// them the first time takes minutes. compilerOff is -no-compiler.
var (
	fusedArchs  = "arm64,riscv64"
	compilerOff bool
)

func init() {
	Analyzer.Flags.StringVar(&fusedArchs, "fused-arch", fusedArchs, "comma-separated GOARCH values to compile each package for, reading the fused multiply-adds the compiler emits (empty: none)")
	Analyzer.Flags.BoolVar(&compilerOff, "no-compiler", false, "do not compile packages to find fused multiply-adds; keep only the source rule")
}

// mayMultiplyFloats reports whether the package multiplies floats, or
// imports a package (not the standard library's) with a float in its API,
// whose helpers may be inlined into it: only those packages are compiled.
func (c *checker) mayMultiplyFloats() bool {
	info := c.pass.TypesInfo
	found := false
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.MUL && isFloat(info.TypeOf(n)) {
					found = true
				}
			case *ast.AssignStmt:
				if n.Tok == token.MUL_ASSIGN && isFloat(info.TypeOf(n.Lhs[0])) {
					found = true
				}
			}
			return !found
		})
	}
	for _, imp := range c.pass.Pkg.Imports() {
		if found {
			break
		}
		if !isStd(imp.Path()) {
			found = apiHasFloat(imp)
		}
	}
	return found
}

// apiHasFloat reports whether a package's exported API mentions a float
// (a field, parameter or result): its small helpers may be inlined.
func apiHasFloat(pkg *types.Package) bool {
	var has func(t types.Type, depth int) bool
	has = func(t types.Type, depth int) bool {
		if depth > 3 || t == nil {
			return false
		}
		if isFloat(t) {
			return true
		}
		switch u := t.Underlying().(type) {
		case *types.Struct:
			for i := range u.NumFields() {
				if has(u.Field(i).Type(), depth+1) {
					return true
				}
			}
		case *types.Array:
			return has(u.Elem(), depth+1)
		case *types.Signature:
			for i := range u.Params().Len() {
				if has(u.Params().At(i).Type(), depth+1) {
					return true
				}
			}
			for i := range u.Results().Len() {
				if has(u.Results().At(i).Type(), depth+1) {
					return true
				}
			}
		}
		return false
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if obj := scope.Lookup(name); obj.Exported() && has(obj.Type(), 0) {
			return true
		}
	}
	return false
}

// compiledSite is a fused line found in the compiled function node (a
// *ast.FuncDecl or *ast.FuncLit of this package).
type compiledSite struct {
	fusedSite
	archs []string
}

// loadCompiled compiles the package for every -fused-arch target and
// maps each fused line to the function of this package it was compiled
// in. Only the packages being checked are compiled (the analyzer also
// runs on their dependencies, in the module cache, for facts, and
// follows no function outside the module), and of those only the ones
// that may multiply a float.
func (c *checker) loadCompiled() {
	c.compiled = map[ast.Node][]*compiledSite{}
	if !c.inModule(c.pass.Pkg) || compilerOff || len(c.pass.Files) == 0 || isDependency(c.pass.Fset.File(c.pass.Files[0].Pos()).Name()) || !c.mayMultiplyFloats() || strings.TrimSpace(fusedArchs) == "" || len(c.pass.Files) == 0 {
		return
	}
	path := c.pass.Pkg.Path()
	base := strings.TrimSuffix(path, "_test")
	hasTest := false
	for _, f := range c.pass.Files {
		hasTest = hasTest || strings.HasSuffix(c.pass.Fset.File(f.Pos()).Name(), "_test.go")
	}
	section := path
	switch {
	case base != path:
		section = path + " [" + base + ".test]"
	case hasTest:
		section = path + " [" + path + ".test]"
	}
	prefix := path
	if c.pass.Pkg.Name() == "main" {
		prefix = "main"
	}
	dir := filepath.Dir(c.pass.Fset.File(c.pass.Files[0].Pos()).Name())
	nodes := c.symbolNodes()
	seen := map[ast.Node]map[string]*compiledSite{}
	for _, arch := range strings.Split(fusedArchs, ",") {
		arch = strings.TrimSpace(arch)
		if arch == "" {
			continue
		}
		res := compileFused(arch, dir, c.compilePattern(base))
		listing, ok := res.sections[section]
		if !ok {
			if res.err != nil {
				fmt.Fprintf(os.Stderr, "rollnet-vet: %s: fused multiply-adds for %s not checked: %v\n", path, arch, res.err)
			}
			continue
		}
		for sym, sites := range listing {
			names, _ := symbolPath(sym, prefix)
			n := nodes.lookup(names)
			if n == nil {
				continue
			}
			if seen[n] == nil {
				seen[n] = map[string]*compiledSite{}
			}
			for _, s := range sortedSites(sites) {
				key := fmt.Sprintf("%s:%d", s.File, s.Line)
				if cs, ok := seen[n][key]; ok {
					if cs.archs[len(cs.archs)-1] != arch {
						cs.archs = append(cs.archs, arch)
					}
					continue
				}
				cs := &compiledSite{fusedSite: s, archs: []string{arch}}
				seen[n][key] = cs
				c.compiled[n] = append(c.compiled[n], cs)
			}
		}
	}
}

// depDirs are the module cache and GOROOT.
var depDirs = sync.OnceValue(func() []string {
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOROOT").Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
})

// isDependency reports whether a file is a dependency's: in the module
// cache, GOROOT or a vendor directory.
func isDependency(file string) bool {
	for _, d := range depDirs() {
		if strings.HasPrefix(file, d+string(filepath.Separator)) {
			return true
		}
	}
	return strings.Contains(filepath.ToSlash(file), "/vendor/")
}

// compilePattern is what one go list compiles: in module mode, run
// standalone, the whole module at once (one go command per target for
// every package checked; a go command per package spends seconds loading
// the module's package graph each time); run by go vet, which starts a
// process per package, the package alone.
func (c *checker) compilePattern(pkg string) string {
	if c.modPath == "" || vetTool() || !wholeModule {
		return pkg
	}
	return c.modPath + "/..."
}

// wholeModule is off in tests that check one package of the module.
var wholeModule = true

// vetTool reports whether the process runs as go vet's -vettool (its one
// argument is a *.cfg file).
func vetTool() bool {
	return len(os.Args) > 1 && strings.HasSuffix(os.Args[len(os.Args)-1], ".cfg")
}

// symbolIndex maps compiled symbols' names to this package's functions and
// their literals.
type symbolIndex struct {
	funcs   map[string]*ast.FuncDecl // "F" or "T.M"
	methods map[string]bool          // type names with methods
	globs   []*ast.FuncLit           // package-level function literals, in order
}

func (c *checker) symbolNodes() *symbolIndex {
	ix := &symbolIndex{funcs: map[string]*ast.FuncDecl{}, methods: map[string]bool{}}
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					t := recvTypeName(d.Recv.List[0].Type)
					ix.methods[t] = true
					name = t + "." + name
				}
				if _, dup := ix.funcs[name]; !dup { // init may repeat
					ix.funcs[name] = d
				}
			case *ast.GenDecl:
				ix.globs = append(ix.globs, childLits(d)...)
			}
		}
	}
	return ix
}

// recvTypeName is the type name of a receiver expression: T, *T, T[P].
func recvTypeName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// childLits returns the function literals directly inside n (not those
// inside another literal), in source order.
func childLits(n ast.Node) []*ast.FuncLit {
	var lits []*ast.FuncLit
	ast.Inspect(n, func(m ast.Node) bool {
		if lit, ok := m.(*ast.FuncLit); ok && m != n {
			lits = append(lits, lit)
			return false
		}
		return true
	})
	return lits
}

// lookup finds the node a symbol's names lead to: F, T.M, then funcN and
// N for the closures inside (the compiler numbers them in source order).
// A name it cannot follow leaves the deepest node found.
func (ix *symbolIndex) lookup(names []string) ast.Node {
	if len(names) == 0 {
		return nil
	}
	var n ast.Node
	rest := names[1:]
	switch {
	case names[0] == "glob" && len(names) >= 3:
		i := closureIndex(names[2])
		if i < 0 || i >= len(ix.globs) {
			return nil
		}
		n, rest = ix.globs[i], names[3:]
	case ix.methods[names[0]] && len(names) >= 2 && ix.funcs[names[0]+"."+names[1]] != nil:
		n, rest = ix.funcs[names[0]+"."+names[1]], names[2:]
	default:
		d := ix.funcs[names[0]]
		if d == nil {
			return nil
		}
		n = d
	}
	for _, name := range rest {
		i := closureIndex(name)
		if i < 0 {
			break
		}
		lits := childLits(n)
		if i >= len(lits) {
			break
		}
		n = lits[i]
	}
	return n
}

// closureIndex returns the index of a closure named funcN or N, or -1.
func closureIndex(name string) int {
	name = strings.TrimPrefix(name, "func")
	i := 0
	if name == "" {
		return -1
	}
	for _, r := range name {
		if r < '0' || r > '9' {
			return -1
		}
		i = i*10 + int(r-'0')
	}
	return i - 1
}

// fusedFindings returns the findings for the fused lines compiled in n
// and in the literals inside it, except those on lines the source rule
// already reported (covered).
func (c *checker) fusedFindings(n ast.Node, covered map[string]bool) []finding {
	if len(c.compiled) == 0 {
		return nil
	}
	var out []finding
	var nodes []ast.Node
	ast.Inspect(n, func(m ast.Node) bool {
		switch m.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			nodes = append(nodes, m)
		}
		return true
	})
	done := map[string]bool{}
	for _, m := range nodes {
		for _, s := range c.compiled[m] {
			file := c.relFile(s.File)
			if tf := c.passFile(s.File); tf != nil {
				file = tf.Name()
			}
			key := fmt.Sprintf("%s:%d", file, s.Line)
			if covered[key] || done[key] {
				continue
			}
			done[key] = true
			out = append(out, c.fusedFinding(m, s)...)
		}
	}
	return out
}

// fusedFinding builds the findings for a fused line compiled in g: one
// at the line if it is in this package, else one at each call in g of
// the inlined helper whose product the analyzer traces (the compiler
// gives the helper's line, not which of its calls fused).
func (c *checker) fusedFinding(g ast.Node, s *compiledSite) []finding {
	archs := strings.Join(s.archs, ", ")
	gname := c.nodeName(g)
	fix := func(f finding, edits []analysis.TextEdit) finding {
		if len(edits) > 0 {
			f.fixes = []analysis.SuggestedFix{{Message: "convert the product that feeds it (rounds it, so it is not fused)", TextEdits: edits}}
		}
		return f
	}
	if tf := c.passFile(s.File); tf != nil {
		hint, edits, _ := c.traceFused(g, s, nil)
		pos := c.addAt(tf, s.Line)
		in := gname
		if h := innermostFunc(c.fileAST(tf), c.pass.Fset, s.Line); h != nil && h != g {
			in = c.nodeName(h) + ", inlined into " + gname
		}
		msg := fmt.Sprintf("fused multiply-add: compiled for %s, this line is one %s in %s (one rounding instead of two: amd64 and 386 compute another value); %s",
			archs, s.Instr, in, hint)
		return []finding{fix(finding{pos: pos, category: "fused", message: msg}, edits)}
	}
	// A helper of another package inlined into g.
	if otherSuppressed(s.File, s.Line) {
		return nil
	}
	where := c.relFile(s.File)
	callee, calls, through := c.inlinedCall(g, s)
	if through {
		// Brought in by a function of this package inlined into g: that
		// function's own compiled body has it, and reports it at its call.
		return nil
	}
	msg := func(hint string) string {
		return fmt.Sprintf("%s:%d: fused multiply-add: compiled for %s, %s inlined into %s here is one %s (one rounding instead of two: amd64 and 386 compute another value); %s",
			where, s.Line, archs, callee, gname, s.Instr, hint)
	}
	var out []finding
	for _, call := range calls {
		if hint, edits, ok := c.traceFused(g, s, call); ok {
			out = append(out, fix(finding{pos: call.Pos(), category: "fused", message: msg(hint)}, edits))
		}
	}
	if len(out) == 0 {
		pos := g.Pos()
		if len(calls) > 0 {
			pos = calls[0].Pos()
		}
		hint, edits, _ := c.traceFused(g, s, nil)
		out = append(out, fix(finding{pos: pos, category: "fused", message: msg(hint)}, edits))
	}
	return out
}

// passFile returns the pass's file named name, if any.
func (c *checker) passFile(name string) *token.File {
	for _, f := range c.pass.Files {
		tf := c.pass.Fset.File(f.Pos())
		if tf != nil && sameFile(tf.Name(), name) {
			return tf
		}
	}
	return nil
}

// fileAST returns the pass's syntax for tf.
func (c *checker) fileAST(tf *token.File) *ast.File {
	for _, f := range c.pass.Files {
		if c.pass.Fset.File(f.Pos()) == tf {
			return f
		}
	}
	return nil
}

// addAt returns the position of the first float add or subtract operator
// on line, or the line's start.
func (c *checker) addAt(tf *token.File, line int) token.Pos {
	f := c.fileAST(tf)
	best := token.NoPos
	ast.Inspect(f, func(n ast.Node) bool {
		var op token.Pos
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.ADD || n.Op == token.SUB) && isFloat(c.pass.TypesInfo.TypeOf(n)) {
				op = n.OpPos
			}
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN {
				op = n.TokPos
			}
		}
		if op.IsValid() && tf.Line(op) == line && (!best.IsValid() || op < best) {
			best = op
		}
		return true
	})
	if best.IsValid() {
		return best
	}
	if line >= 1 && line <= tf.LineCount() {
		return tf.LineStart(line)
	}
	return f.Pos()
}

// relFile renders an absolute file name the way where() renders this
// package's positions: relative to the module's root (in GOPATH mode, to
// the src directory), which is this package's directory less its path.
func (c *checker) relFile(name string) string {
	dir := filepath.Dir(c.pass.Fset.File(c.pass.Files[0].Pos()).Name())
	rel := strings.TrimSuffix(c.pass.Pkg.Path(), "_test")
	if c.modPath != "" {
		rel = strings.TrimPrefix(strings.TrimPrefix(rel, c.modPath), "/")
	}
	root := dir
	if rel != "" {
		root = strings.TrimSuffix(filepath.ToSlash(dir), "/"+rel)
	}
	if r, err := filepath.Rel(root, name); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.Base(name)
}

// nodeName names a function node for messages: F, T.M, or F's literal.
func (c *checker) nodeName(n ast.Node) string {
	switch n := n.(type) {
	case *ast.FuncDecl:
		if n.Recv != nil && len(n.Recv.List) == 1 {
			return recvTypeName(n.Recv.List[0].Type) + "." + n.Name.Name
		}
		return n.Name.Name
	case *ast.FuncLit:
		p := c.pass.Fset.Position(n.Pos())
		for _, f := range c.pass.Files {
			if f.Pos() <= n.Pos() && n.Pos() < f.End() {
				for _, d := range f.Decls {
					if d.Pos() <= n.Pos() && n.Pos() < d.End() {
						if fd, ok := d.(*ast.FuncDecl); ok {
							return fmt.Sprintf("the function literal in %s (line %d)", c.nodeName(fd), p.Line)
						}
					}
				}
			}
		}
		return fmt.Sprintf("the function literal at line %d", p.Line)
	}
	return "?"
}

// otherFiles caches files of other packages parsed for inlined helpers.
type parsedFile struct {
	fset *token.FileSet
	file *ast.File
}

func parseOther(name string) *parsedFile {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
	if err != nil {
		return nil
	}
	return &parsedFile{fset, f}
}

// otherSuppressed reports whether a //rollnet:ok with a reason is on line
// of another package's file, or on the line above it, or in the doc
// comment of the function around it.
func otherSuppressed(name string, line int) bool {
	if ignoreOK {
		return false
	}
	pf := parseOther(name)
	if pf == nil {
		return false
	}
	for _, g := range pf.file.Comments {
		for _, cm := range g.List {
			if reason, ok := directive(cm.Text, okDirective); ok && reason != "" {
				if l := pf.fset.Position(cm.Pos()).Line; l == line || l == line-1 {
					return true
				}
			}
		}
	}
	if fd := declAtLine(pf, line); fd != nil && fd.Doc != nil {
		for _, cm := range fd.Doc.List {
			if reason, ok := directive(cm.Text, okDirective); ok && reason != "" {
				return true
			}
		}
	}
	return false
}

// declAtLine returns the function declaration of pf around line.
func declAtLine(pf *parsedFile, line int) *ast.FuncDecl {
	for _, d := range pf.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if pf.fset.Position(fd.Pos()).Line <= line && line <= pf.fset.Position(fd.End()).Line {
			return fd
		}
	}
	return nil
}

// callIn is a call found in a compiled function g, in g itself or in a
// function of this package g calls (which the compiler may have inlined
// into g): in is the function holding the call, top the call in g that
// leads to it, via the names of the functions between.
type callIn struct {
	call *ast.CallExpr
	in   ast.Node
	top  *ast.CallExpr
	via  []string
}

// callsIn returns the calls in g, and in this package's functions g
// calls (up to depth 3), of a function match accepts.
func (c *checker) callsIn(g ast.Node, match func(*types.Func) bool) []callIn {
	var out []callIn
	seen := map[ast.Node]bool{}
	var walk func(n ast.Node, top *ast.CallExpr, via []string, depth int)
	walk = func(n ast.Node, top *ast.CallExpr, via []string, depth int) {
		if seen[n] || depth > 3 {
			return
		}
		seen[n] = true
		var local []callIn
		ast.Inspect(n, func(m ast.Node) bool {
			call, ok := m.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := calleeFunc(c.pass.TypesInfo, call)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			t := top
			if t == nil {
				t = call
			}
			if match(fn) {
				out = append(out, callIn{call: call, in: n, top: t, via: via})
			} else if d, ok := c.decls[fn]; ok {
				local = append(local, callIn{call: call, in: d, top: t})
			}
			return true
		})
		for _, l := range local {
			walk(l.in, l.top, append(append([]string(nil), via...), c.nodeName(l.in)), depth+1)
		}
	}
	walk(g, nil, nil, 0)
	return out
}

// inlinedCall finds, in g, the calls that brought another package's
// line into it: the calls of the function declared around the line, or
// else the first call of a function of that file's package. through is
// set when the only calls are in functions of this package that g calls.
func (c *checker) inlinedCall(g ast.Node, s *compiledSite) (callee string, calls []*ast.CallExpr, through bool) {
	pf := parseOther(s.File)
	name, recv := "", ""
	if pf != nil {
		if fd := declAtLine(pf, s.Line); fd != nil {
			name = fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				recv = recvTypeName(fd.Recv.List[0].Type)
			}
		}
	}
	callee = name
	if recv != "" {
		callee = recv + "." + name
	}
	if pf != nil && callee != "" {
		callee = pf.file.Name.Name + "." + callee
	}
	if name != "" {
		found := c.callsIn(g, func(fn *types.Func) bool { return fn.Name() == name && funcRecvName(fn) == recv })
		for _, ci := range found {
			if len(ci.via) == 0 {
				calls = append(calls, ci.call)
			}
		}
		if len(found) > 0 {
			return callee, calls, len(calls) == 0
		}
	}
	dir := filepath.Dir(s.File)
	found := c.callsIn(g, func(fn *types.Func) bool {
		p := c.pass.Fset.Position(fn.Pos())
		return p.Filename != "" && sameFile(filepath.Dir(p.Filename), dir)
	})
	if len(found) > 0 {
		if fn := calleeFunc(c.pass.TypesInfo, found[0].call); fn != nil {
			callee += " (through " + qualName(fn) + ")"
		}
		return callee, []*ast.CallExpr{found[0].top}, len(found[0].via) > 0
	}
	return callee, nil, false
}

// funcRecvName is a method's receiver type name, or "".
func funcRecvName(fn *types.Func) string {
	if r := fn.Signature().Recv(); r != nil {
		return recvName(r.Type())
	}
	return ""
}

// qualName is pkg.F or pkg.T.M.
func qualName(fn *types.Func) string {
	if r := funcRecvName(fn); r != "" {
		return fn.Pkg().Name() + "." + r + "." + fn.Name()
	}
	return fn.Pkg().Name() + "." + fn.Name()
}
